package org.p2psip.integration;

import java.time.Duration;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedBindingsIT} on four peers of the SIP-based DHT after Bryan's draft (SIP
 * 26100-26103, the callee's UAS on 26110), whose ring is kept with REGISTERs through the same
 * containers that serve the users. `up` returns once every node serves its range of the ring (a
 * Bryan node answers its OPTIONS probe 503 until then), so the checks start on a formed ring.
 * 200 REGISTER/s through one node, as for the other backends: each costs that node a put, three
 * in four of them routed to another peer in a batch of operations (before batching, four cold
 * JVMs on 2 cores answered a quarter of them 503 at that rate, and this test drove 100/s).
 * Its peers take 32 places each (one is Bryan's default: peers of 32 places take longer than the
 * default warm-up to settle, see the module's README), and first of all status shows the four
 * sharing the key space evenly.
 */
class BryanNodesIT extends SharedBindingsIT {

    /** How long the places may take to settle after up and to be logged (the nodes log every second here). */
    private static final Duration SETTLE = Duration.ofSeconds(120);

    BryanNodesIT() {
        super("bryan", 26100, 1_000, 200);
        deployment.withSetting("p2psip.bryan.places", "32");
        deployment.withSetting("p2psip.metrics.interval", "1s");
    }

    /**
     * With 32 places each the key space is shared evenly:
     * every node's share in `deploy/p2psip status` is at most 3/8 and together they make the
     * whole ring.
     */
    @Test
    @Order(0)
    void statusShowsFourNodesSharingTheKeySpaceWithinThreeEighthsEach() {
        StatusShares.assertEvenlyShared(deployment, 4, SETTLE);
    }

    @Override
    protected boolean restartInDefaultRun() {
        return false; // the matrix run restarts it: the default run has Chord's and Bamboo's restarts
    }
}
