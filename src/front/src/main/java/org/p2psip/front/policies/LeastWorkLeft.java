package org.p2psip.front.policies;

import org.p2psip.front.nodes.Node;

/**
 * {@code tlwl}: the node with the least work left, an open INVITE transaction counting
 * {@code inviteWeight} (1.75 in Jiang et al., whose measurements found an INVITE transaction
 * costs about that much more than a BYE) and any other transaction 1. A faster node finishes its
 * transactions sooner, so it is chosen more often without being told its speed. Thread-safe.
 */
final class LeastWorkLeft extends LeastLoaded {

    private final double inviteWeight;

    LeastWorkLeft(double inviteWeight) {
        if (!(inviteWeight > 0)) {
            throw new IllegalArgumentException("the INVITE weight must be positive, not " + inviteWeight);
        }
        this.inviteWeight = inviteWeight;
    }

    @Override
    double load(Node node) {
        return inviteWeight * node.invites() + node.others();
    }
}
