package org.p2psip.front.policies;

import org.p2psip.front.nodes.Node;

/** {@code cjsq}: the node with the fewest calls in progress. Thread-safe. */
final class FewestCalls extends LeastLoaded {

    @Override
    double load(Node node) {
        return node.calls();
    }
}
