package org.p2psip.integration;

import static java.util.stream.Collectors.groupingBy;
import static java.util.stream.Collectors.mapping;
import static java.util.stream.Collectors.toSet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Four Chord nodes behind the front (deploy/p2psip up --front POLICY --tls): clients see one address.
 * The tests run in order on one deployment; each subclass names the policy and its port range
 * (front on the first port, nodes on the next four, the callee's SIPp on +9).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class FrontIT extends DeployedNodes {

    static final int NODES = 4;
    /** REGISTERs (and queries) per second through the front: well under what four nodes carry here,
     *  with every message logged and other work on a 2-core machine. */
    static final int RATE = 200;
    /** Unjudged REGISTERs first, so that each node's JVM has compiled its hot paths. */
    static final int WARM_UP_USERS = 600;
    /** AORs registered before the kill, and again as many (other AORs) after it. */
    static final int USERS = 1_000;
    /** First user number of the AORs registered after the kill. */
    static final int AFTER_KILL_START = 100_000;
    /** First user number of the warm-up AORs, apart from those the tests count. */
    static final int WARM_UP_START = 1_000_000;
    static final int CALLS = 30;
    /** The node killed; not node 0, the overlay's bootstrap. */
    static final int VICTIM = 2;
    /** The front marks a node down after its probe time-out (3 s); this bounds the wait for it. */
    static final Duration MARKED_DOWN = Duration.ofSeconds(30);
    /** How long the overlay may take to repair itself after the kill before the test fails. */
    static final Duration REPAIR = Duration.ofSeconds(60);

    private final int uasPort;
    /** When the front marked the victim down; work after it must go to the others. */
    private long victimDownMillis;

    FrontIT(String policy, int frontPort) {
        super("front-" + policy, "chord", frontPort + 1, NODES);
        deployment.withFront(policy, frontPort).withTls();
        this.uasPort = frontPort + 9;
    }

    @Test
    @Order(1)
    void registrationsThroughTheFrontAreAllAnswered200() {
        // Warm-up, not judged: the front's JVM starts cold, and the nodes warmed up only briefly
        // (Deployment); the front spreads the warm-up over four nodes, so it is longer than a
        // single node's. ReadinessIT holds the nodes to ready at once.
        sipp.register(deployment.front(), WARM_UP_USERS, WARM_UP_START, 100);
        assertEquals(0, sipp.register(deployment.front(), USERS, 0, RATE),
                "a REGISTER through the front was not answered 200; " + sipp.where());
    }

    @Test
    @Order(2)
    void registrationsWereSpreadOverEveryNode() {
        Map<Integer, Long> perNode = fromFront(allNodes()).stream().filter(m -> m.method().equals("REGISTER"))
                .collect(groupingBy(SipTrace.Message::node, java.util.stream.Collectors.counting()));
        assertEquals(Set.of(0, 1, 2, 3), perNode.keySet(), "nodes that got REGISTERs from the front: " + perNode);
    }

    @Test
    @Order(3)
    void callsThroughTheFrontComplete() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target");
        assertEquals(0, sipp.calls(deployment.front(), deployment.front(), "callee", uasPort, CALLS),
                "a call through the front failed; " + sipp.where());
    }

    /**
     * Every request of a call (INVITE, ACK, BYE) reached the node that got its INVITE. The calls
     * alone cannot show this: the ACK and BYE carry a Route to the node that record-routed the
     * INVITE, and a wrong node relays them along it, so the call would complete anyway. The nodes'
     * own SIP stacks log each message they receive (--sip-trace); if the front sent an ACK or BYE
     * to another node, that node's log holds a request of the call from the front, and the set of
     * nodes below has two members. That every call's ACK and BYE were seen at all is checked too,
     * so that an empty log cannot pass. Calls are the Call-IDs with an INVITE: SIPp also sends a BYE
     * when it gives up on a REGISTER (a warm-up 503), which is no call.
     */
    @Test
    @Order(4)
    void aCallsAckAndByeReachTheNodeThatHandledItsInvite() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target");
        List<SipTrace.Message> received = fromFront(allNodes());
        Set<String> invited = received.stream().filter(m -> m.method().equals("INVITE"))
                .map(SipTrace.Message::callId).collect(toSet());
        List<SipTrace.Message> calls = received.stream().filter(m -> invited.contains(m.callId())).toList();
        // Every request of those Call-IDs, whatever its method (a re-INVITE or a CANCEL counts too)
        Map<String, Set<Integer>> nodesOfCall = calls.stream()
                .collect(groupingBy(SipTrace.Message::callId, mapping(SipTrace.Message::node, toSet())));
        Map<String, Set<String>> methodsOfCall = calls.stream()
                .collect(groupingBy(SipTrace.Message::callId, mapping(SipTrace.Message::method, toSet())));
        assertEquals(CALLS, nodesOfCall.size(), "calls whose requests the nodes got from the front: " + nodesOfCall);
        nodesOfCall.forEach((callId, nodes) -> {
            assertEquals(1, nodes.size(), "the requests of call " + callId + " reached nodes " + nodes);
            assertEquals(Set.of("INVITE", "ACK", "BYE"), methodsOfCall.get(callId),
                    "requests of call " + callId + " that node " + nodes + " got from the front");
        });
    }

    @Test
    @Order(5)
    void afterANodeIsKilledNewRegistrationsGoToTheOthersAndAreAllAnswered200() {
        deployment.kill(VICTIM);
        awaitFrontMarkedDown(VICTIM);
        // The front no longer sends to the victim; the Chord ring may still route a lookup to it
        // until it repaired itself (503 from a node, retried here for at most REPAIR). If the front
        // still sent new work to the dead node, those REGISTERs would go unanswered on every round,
        // and a lost binding stays lost, so the retries still fail on what matters.
        assertEquals(0, sipp.untilPassed(REPAIR, () -> sipp.register(deployment.front(), USERS, AFTER_KILL_START, RATE)),
                "after node " + VICTIM + " was killed and marked down, a REGISTER through the front was not "
                        + "answered 200; " + sipp.where());
        Set<Integer> survivors = Set.of(0, 1, 2, 3).stream().filter(i -> i != VICTIM).collect(toSet());
        Set<Integer> served = fromFront(survivors.stream().mapToInt(Integer::intValue).toArray()).stream()
                .filter(m -> m.method().equals("REGISTER") && m.timeMillis() >= victimDownMillis)
                .map(SipTrace.Message::node).collect(toSet());
        assertEquals(survivors, served, "nodes that got REGISTERs from the front after the kill");
    }

    @Test
    @Order(6)
    void nothingRegisteredIsLostWhenANodeIsKilled() {
        assertEquals(0, sipp.untilPassed(REPAIR, () -> sipp.query(deployment.front(), USERS, 0, RATE)),
                "a binding registered through the front before the kill is no longer listed; " + sipp.where());
        assertEquals(0, sipp.untilPassed(REPAIR, () -> sipp.query(deployment.front(), USERS, AFTER_KILL_START, RATE)),
                "a binding registered through the front after the kill is no longer listed; " + sipp.where());
    }

    @Test
    @Order(7)
    void aPhoneOverTlsRegistersThroughTheFrontsTlsPort() throws IOException {
        assumeTrue(frontServesTls(), "this front serves UDP and TCP only; TLS clients use the nodes' TLS ports");
        try (var phone = new DigestClient("tls-phone", "p2psip.test", deployment.caCertificate())) {
            var registered = phone.register(deployment.tlsFront(), null);
            assertEquals(200, registered.status(), "a REGISTER over TLS through the front: " + registered.lines());
            assertTrue(registered.headers("Via").get(0).startsWith("SIP/2.0/TLS"),
                    "the answer came back over the phone's TLS connection with its own Via: " + registered.lines());
            assertTrue(registered.headers("Contact").stream().anyMatch(c -> c.contains("sips:phone@")),
                    "the 200 lists the sips contact as registered: " + registered.lines());
        }
    }

    /** Whether the front listens for TLS (src/front does with `up --tls`). */
    boolean frontServesTls() {
        return true;
    }

    /** The line the front logs when it takes node {@code i} out (src/front's Nodes). */
    String markedDownLine(int i) {
        return "node" + i + "(" + deployment.node(i) + ") is down";
    }

    /** Polls the front's log until it says node {@code i} is down; fails the test past the bound. */
    private void awaitFrontMarkedDown(int i) {
        String line = markedDownLine(i);
        long deadline = System.nanoTime() + MARKED_DOWN.toNanos();
        while (!frontLogHas(line)) {
            if (System.nanoTime() > deadline) {
                fail("the front did not mark node " + i + " down within " + MARKED_DOWN + "; see "
                        + deployment.frontLog());
            }
            try {
                Thread.sleep(100); // poll interval of a condition, not a wait for time to pass
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
        victimDownMillis = System.currentTimeMillis();
    }

    private boolean frontLogHas(String line) {
        try {
            return Files.readString(deployment.frontLog()).contains(line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int[] allNodes() {
        return IntStream.range(0, NODES).toArray();
    }

    /** The requests the given nodes received from the front. */
    private List<SipTrace.Message> fromFront(int... nodes) {
        List<SipTrace.Message> received = new ArrayList<>();
        for (int i : nodes) {
            SipTrace.read(i, deployment.containerLog(i)).stream()
                    .filter(m -> !m.sent() && m.from().equals(deployment.front()) && !m.method().equals("SIP/2.0"))
                    .forEach(received::add);
        }
        assertFalse(received.isEmpty(), "the nodes logged no message from the front (--sip-trace)");
        return received;
    }

}
