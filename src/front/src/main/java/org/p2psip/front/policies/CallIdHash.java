package org.p2psip.front.policies;

import java.util.List;
import org.p2psip.front.nodes.Node;

/**
 * {@code hash}: a Call-ID always maps to the same node while that node is up. Rendezvous hashing
 * (highest hash of Call-ID and node wins), so when a node goes down only its own Call-IDs move.
 * Stateless, thread-safe.
 */
final class CallIdHash implements Policy {

    @Override
    public Node choose(List<Node> candidates, String callId) {
        Node best = null;
        long bestScore = Long.MIN_VALUE;
        for (Node node : candidates) {
            long score = mix(callId.hashCode() * 0x9E3779B97F4A7C15L + node.index());
            if (best == null || score > bestScore) {
                best = node;
                bestScore = score;
            }
        }
        return best;
    }

    /** The finaliser of SplitMix64: spreads close inputs over the whole range. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
