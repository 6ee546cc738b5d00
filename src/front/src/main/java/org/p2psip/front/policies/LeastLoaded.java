package org.p2psip.front.policies;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.p2psip.front.nodes.Node;

/**
 * The shape the join-shortest-queue policies share: the node with the least load wins; ties are
 * broken in turn (starting one node further each time), so idle nodes share work evenly.
 * Thread-safe; the counters it reads may move while it reads them, which only blurs a tie.
 */
abstract class LeastLoaded implements Policy {

    private final AtomicInteger start = new AtomicInteger();

    /** The load of a node as this policy measures it. */
    abstract double load(Node node);

    @Override
    public Node choose(List<Node> candidates, String callId) {
        int n = candidates.size();
        int first = Math.floorMod(start.getAndIncrement(), n);
        Node best = null;
        double bestLoad = Double.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Node node = candidates.get((first + i) % n);
            double load = load(node);
            if (load < bestLoad) {
                best = node;
                bestLoad = load;
            }
        }
        return best;
    }
}
