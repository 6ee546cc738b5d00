package org.p2psip.front.policies;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.p2psip.front.nodes.Node;

/** {@code rr}: each new Call-ID goes to the next node up, in turn. Thread-safe. */
final class RoundRobin implements Policy {

    private final AtomicInteger next = new AtomicInteger();

    @Override
    public Node choose(List<Node> candidates, String callId) {
        return candidates.get(Math.floorMod(next.getAndIncrement(), candidates.size()));
    }
}
