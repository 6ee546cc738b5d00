package org.p2psip.dht.ring;

import java.util.List;

/**
 * What a node says of its place: its predecessor (null when it knows none) and its successor
 * list, nearest first. Stabilisation asks the successor for it. Immutable.
 */
public record Neighbours(NodeRef predecessor, List<NodeRef> successors) {
    public Neighbours {
        successors = List.copyOf(successors);
    }
}
