package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shares of the key space `deploy/p2psip status` prints for a deployment's nodes, from the
 * counters each node logs: what the backends that take places on the ring (Chord, Bryan) are
 * checked against.
 */
final class StatusShares {

    private static final Pattern NODE = Pattern.compile("^node .* share (\\S+) records (\\S+)");

    private StatusShares() {
    }

    /**
     * Polls status until every one of the {@code nodes} nodes has a share and they add up to the
     * whole ring, within {@code settle}; then every share must be at most 1.5 times a fair one.
     */
    static void assertEvenlyShared(Deployment deployment, int nodes, Duration settle) {
        long end = System.nanoTime() + settle.toNanos();
        List<String> lines;
        List<Double> shares;
        do {
            lines = deployment.status();
            shares = shares(lines);
            if (shares.size() == nodes && Math.abs(sum(shares) - 1) <= 0.002) {
                break;
            }
            pause();
        } while (System.nanoTime() < end);
        assertEquals(nodes, shares.size(), "a share for each of the " + nodes + " nodes in status: " + lines);
        assertEquals(1, sum(shares), 0.002, "the shares add up to the whole ring: " + lines);
        double most = 1.5 / nodes;
        for (double share : shares) {
            assertTrue(share <= most, "every node's share is at most " + most + ": " + lines);
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
