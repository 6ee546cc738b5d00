package org.p2psip.dht.ring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How a backend carries the ring's own messages: Chord as frames on its overlay transport,
 * Bryan as peer REGISTERs through the SIP container. {@link Membership} decides what to send and
 * when; the backend only says it in its wire format. Every call runs on the node's loop and its
 * stage completes there.
 */
public interface RingMessages {

    /**
     * Asks {@code via} for this node's place on its ring. Completes with what this node takes as
     * its successor list (its successor first), empty when {@code via} places it nowhere (it is
     * not on a ring, did not answer in {@code within}, or named this node itself). Never fails.
     */
    CompletableFuture<Placement> join(NodeRef via, Duration within);

    /** Whether {@code member} answers as a node on a ring: a founder's check before it starts one. Never fails. */
    CompletableFuture<Boolean> onRing(NodeRef member);

    /**
     * Stabilisation's question to the successor: its predecessor and successor list; null when it
     * answered without them (it refused). Fails when it did not answer. (Bryan's question also
     * tells the successor that this node may be its predecessor.)
     */
    CompletableFuture<Neighbours> state(NodeRef successor);

    /** Tells {@code successor} that this node may be its predecessor; {@code fresh}: it joined with nothing stored. */
    void notify(NodeRef successor, boolean fresh);

    /** Probes the predecessor; fails when it does not answer. */
    CompletableFuture<?> probe(NodeRef predecessor);

    /**
     * Asks {@code node} only whether it answers, telling it nothing about this node (a probe may
     * offer this node as a neighbour, which a far node must not take); fails when it does not
     * answer. For a peer a user's operation found silent.
     */
    CompletableFuture<?> ping(NodeRef node);

    /** The owner of {@code key}, found through the ring; for refreshing a finger. */
    CompletableFuture<NodeRef> ownerOf(Id key);

    /**
     * The owner of {@code key} as the ring's routing finds it starting from {@code via}, not from
     * this node's own table: for checking that no node lies unseen between this node and its
     * successor. Fails when the lookup did not end.
     */
    CompletableFuture<NodeRef> ownerOf(Id key, NodeRef via);

    /** Tells {@code newcomer} that every record of its range is with it now. */
    void handed(NodeRef newcomer);

    /**
     * Tells the successor and the predecessor (null: none) that this node leaves, with its
     * predecessor and successor list; completes when both answered or failed.
     */
    CompletableFuture<Void> leaving(NodeRef successor, NodeRef predecessor);

    /**
     * The answer to a join: the nodes this node takes as successors, and the other nodes the
     * answer named (finger hints; may be empty). Immutable.
     */
    record Placement(List<NodeRef> successors, List<NodeRef> hints) {
        public Placement {
            successors = List.copyOf(successors);
            hints = List.copyOf(hints);
        }

        public static Placement none() {
            return new Placement(List.of(), List.of());
        }
    }
}
