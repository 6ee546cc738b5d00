package org.p2psip.front;

/** {@code cjsq}: the node with the fewest calls in progress. Thread-safe. */
final class FewestCalls extends LeastLoaded {

    @Override
    double load(Node node) {
        return node.calls();
    }
}
