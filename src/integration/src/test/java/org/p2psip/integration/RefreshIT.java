package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Phones refreshing their registrations (RFC 3261 §10.2.4) through any node of a Chord ring of
 * four (SIP 29300-29303). 200,000 users register once, user i through node i mod 4; then each
 * refreshes, with the Call-ID of its first REGISTER and CSeq + 1, through node (i + 1) mod 4. Every
 * refresh so reaches another node than its first REGISTER did, mostly one that does not own the
 * AOR: the path where a node updates, over the ring, a record that exists. Every request ends
 * 200: a 503 with Retry-After is a node asking to be asked later, and the user asks again once
 * it passed, as phones do (counted apart, not a failure). Afterwards a query through a third
 * node, (i + 2) mod 4, lists exactly one binding for every user, its own: a refresh taken for a
 * first registration would leave two, a lost write none.
 *
 * <p>The phones are the test's own UDP client ({@link RegisterLoad}): four sockets, at most
 * {@link #WINDOW} requests out, so the load follows what the nodes carry. Matrix run only: 600,000
 * requests through four nodes on two cores take minutes (src/integration/README.md has the times).
 */
@Matrix
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RefreshIT extends DeployedNodes {

    static final int BASE_PORT = 29300;
    static final int NODES = 4;
    static final int USERS = 200_000;
    /**
     * Requests out at once over the four nodes: enough to keep them all busy, few enough that
     * answers come well within T1 (500 ms) on two shared cores, so that retransmissions stay rare.
     */
    static final int WINDOW = 100;
    /** How long a round may go without a single final answer or Timer F before the client is taken for stuck. */
    static final Duration STALL = Duration.ofSeconds(120);

    private RegisterLoad phones;

    RefreshIT() {
        super("refresh", "chord", BASE_PORT, NODES);
        // 200,000 records, each on its owner and two replicas: 150,000 copies a node
        deployment.withHeap("768m")
                // minutes of load at the nodes' ceiling: the optimising compiler (the nodes' default)
                // answers slowly, and with some 503s, for its first minute, and then carries the
                // refreshes and queries far faster than the first tier alone
                .withoutJvmArg("-XX:TieredStopAtLevel=1")
                // a refused phone asks again after 1-2 s rather than 5-10 s: the same rule, a shorter run
                .withSetting("p2psip.retry-after", "1");
    }

    @BeforeAll
    void openPhones() throws IOException {
        List<String> nodes = IntStream.range(0, NODES).mapToObj(deployment::node).toList();
        phones = new RegisterLoad(nodes, USERS, WINDOW, "cap", "p2psip.test", Command.WORK.resolve("refresh-load.log"));
    }

    @AfterAll
    void closePhones() throws IOException, InterruptedException {
        if (phones != null) {
            phones.close();
        }
    }

    @Test
    @Order(1)
    void everyUsersFirstRegisterIsAnswered200() throws InterruptedException {
        LoadResult load = phones.run("load", USERS, RegisterLoad.Kind.BIND, user -> user % NODES, STALL);
        System.out.println(load.summary());
        assertEquals(0, load.failures(), "a first REGISTER did not end 200; " + load.summary());
        assertEquals(Map.of(1, (long) USERS), load.contactsListed(),
                "each first REGISTER's 200 lists the one binding it made; " + load.summary());
    }

    @Test
    @Order(2)
    void everyUsersRefreshThroughAnotherNodeIsAnswered200ListingOneBinding() throws InterruptedException {
        LoadResult refresh = phones.run("refresh", USERS, RegisterLoad.Kind.BIND, user -> (user + 1) % NODES, STALL);
        System.out.println(refresh.summary());
        assertEquals(0, refresh.failures(), "a refresh did not end 200; " + refresh.summary());
        assertEquals(Map.of(1, (long) USERS), refresh.contactsListed(),
                "each refresh's 200 lists the AOR's bindings (RFC 3261 §10.3 step 8): the one it refreshed; "
                        + refresh.summary());
    }

    @Test
    @Order(3)
    void afterwardsEveryUserHasExactlyOneBindingItsOwn() throws InterruptedException {
        LoadResult query = phones.run("query", USERS, RegisterLoad.Kind.QUERY, user -> (user + 2) % NODES, STALL);
        System.out.println(query.summary());
        assertEquals(0, query.failures(), "a query REGISTER did not end 200; " + query.summary());
        Map<String, Integer> counts = new TreeMap<>();
        Map<String, String> firsts = new TreeMap<>();
        for (int i = 0; i < USERS; i++) {
            List<String> bindings = query.contacts().get(i);
            String wrong = bindings.size() != 1 ? "users with " + bindings.size() + " bindings"
                    : !bindings.get(0).equals(phones.contact(i)) ? "users whose one binding is not their own" : null;
            if (wrong != null) {
                counts.merge(wrong, 1, Integer::sum);
                firsts.putIfAbsent(wrong, phones.user(i) + " " + bindings);
            }
        }
        assertTrue(counts.isEmpty(), () -> counts.entrySet().stream()
                .map(e -> e.getKey() + ": " + e.getValue() + ", first: " + firsts.get(e.getKey()))
                .collect(Collectors.joining("; ")) + "; " + query.summary());
    }
}
