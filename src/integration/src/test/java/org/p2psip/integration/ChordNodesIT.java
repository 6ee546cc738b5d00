package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedBindingsIT} on a Chord ring of four nodes (SIP 25100-25103) whose overlay runs over
 * mutual TLS (deploy/p2psip up --overlay-tls): joins, replicas and the repair after the kill all
 * cross TLS connections between certificates of the deployment's CA. First of all, status shows
 * the four sharing the key space evenly.
 */
class ChordNodesIT extends SharedBindingsIT {

    private static final Pattern NODE = Pattern.compile("^node .* share (\\S+) records (\\S+)");
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
        long end = System.nanoTime() + SETTLE.toNanos();
        List<String> lines;
        List<Double> shares;
        do {
            lines = deployment.status();
            shares = shares(lines);
            if (shares.size() == 4 && Math.abs(sum(shares) - 1) <= 0.002) {
                break;
            }
            pause();
        } while (System.nanoTime() < end);
        assertEquals(4, shares.size(), "a share for each of the four nodes in status: " + lines);
        assertEquals(1, sum(shares), 0.002, "the shares add up to the whole ring: " + lines);
        for (double share : shares) {
            assertTrue(share <= 0.375, "every node's share is at most 0.375: " + lines);
        }
    }

    /** The share on each node line; a line whose share is unknown yet ("-") gives none. */
    private static List<Double> shares(List<String> lines) {
        var shares = new ArrayList<Double>();
        for (String line : lines) {
            Matcher m = NODE.matcher(line);
            if (m.find() && !m.group(1).equals("-")) {
                shares.add(Double.parseDouble(m.group(1)));
            }
        }
        return shares;
    }

    private static double sum(List<Double> shares) {
        return shares.stream().mapToDouble(Double::doubleValue).sum();
    }

    private static void pause() {
        try {
            Thread.sleep(1000); // polling status until the ring settled, not waiting a fixed time
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(e);
        }
    }
}

