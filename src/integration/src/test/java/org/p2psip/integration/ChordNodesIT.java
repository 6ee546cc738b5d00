package org.p2psip.integration;

import java.time.Duration;
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

    @Override
    protected boolean restartInDefaultRun() {
        return false; // the matrix run restarts it: the default run has Bamboo's restart
    }
}

