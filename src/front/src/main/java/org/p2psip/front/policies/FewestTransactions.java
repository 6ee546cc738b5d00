package org.p2psip.front.policies;

import org.p2psip.front.nodes.Node;

/** {@code tjsq}: the node with the fewest open transactions, of any method. Thread-safe. */
final class FewestTransactions extends LeastLoaded {

    @Override
    double load(Node node) {
        return node.transactions();
    }
}
