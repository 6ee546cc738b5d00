package org.p2psip.dht.chord;

import java.util.List;
import org.p2psip.dht.ring.NodeRef;

/**
 * The answer of a lookup: the key's owner (its successor), the nodes after it, and how many
 * remote steps the lookup took. Immutable.
 */
public record Route(NodeRef owner, List<NodeRef> successors, int hops) {
    public Route {
        successors = List.copyOf(successors);
    }
}
