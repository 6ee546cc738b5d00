package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedBindingsIT} on a Chord ring of four nodes (SIP 25100-25103) whose overlay runs over
 * mutual TLS (deploy/p2psip up --overlay-tls): joins, replicas and the repair after the kill all
 * cross TLS connections between certificates of the deployment's CA. First of all, status shows
 * the four sharing the key space evenly.
 */
class ChordNodesIT extends SharedBindingsIT {

    /** How long the places may take to settle after up and to be logged (the nodes log every second here). */
    private static final Duration SETTLE = Duration.ofSeconds(120);

    ChordNodesIT() {
        super("chord", 25100, 4_000, 400);
        deployment.withOverlayTls();
        deployment.withSetting("p2psip.metrics.interval", "1s");
    }

    /**
     * At every ring option's default each node takes 64 places, and the key space is shared
     * evenly: every node's share in `deploy/p2psip status` is at most 3/8 (1.5 times a fair
     * quarter) and together they make the whole ring. With one place each, four nodes at the
     * addresses of another of these tests split it 0.543 / 0.033 / 0.315 / 0.109.
     */
    @Test
    @Order(0)
    void statusShowsFourNodesSharingTheKeySpaceWithinThreeEighthsEach() {
        StatusShares.assertEvenlyShared(deployment, 4, SETTLE);
    }

    /**
     * Node 0's status page, rendered by headless Chromium once the registrations went through it
     * and the others: it lists the four nodes, all up, their shares adding up to 1, and its charts
     * have data (the requests chart saw requests). A screenshot is kept beside the test's logs.
     */
    @Test
    @Order(15)
    void theStatusPageListsTheFourNodesTheirSharesAndChartsOfTheirTraffic() {
        StatusPage page = StatusPage.render(deployment.httpNode(1), null);
        var members = page.members();
        assertEquals(4, members.size(), "rows of the deployment table:\n" + page);
        assertTrue(members.stream().allMatch(m -> m.state().equals("up")), "a node not up: " + members);
        assertEquals(1.0, members.stream().mapToDouble(StatusPage.Member::share).sum(), 0.002, "shares " + members);
        var requests = page.charts().stream().filter(c -> c.series().equals("requests")).findFirst()
                .orElseThrow(() -> new AssertionError("no requests chart:\n" + page));
        assertTrue(requests.points() > 1 && requests.max() > 0, "the requests chart has no data: " + requests);
        StatusPage.render(deployment.httpNode(1), Command.WORK.resolve("status-page-chord.png"));
    }

    /** Within 10 s of the KILL, node 1's status page shows node 3 down and the others up. */
    @Override
    protected void afterKill() {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<StatusPage.Member> members;
        do {
            members = StatusPage.render(deployment.httpNode(1), null).members();
            if (members.size() == 4 && members.get(VICTIM).state().equals("down")) {
                break;
            }
        } while (System.nanoTime() < deadline);
        assertEquals("down", members.size() == 4 ? members.get(VICTIM).state() : "missing",
                "node " + VICTIM + " on node 1's status page 10 s after its KILL: " + members);
        assertEquals(3, members.stream().filter(m -> m.state().equals("up")).count(), "the others: " + members);
    }

    @Override
    protected boolean restartInDefaultRun() {
        return false; // the matrix run restarts it: the default run has Bamboo's restart
    }
}

