package org.p2psip.dht.chord;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * One iterative lookup (paper §4.3, find_successor, done by the asking node): the asker sends
 * FIND to the closest preceding node it knows; each answer is either the key's successor list
 * (done) or nodes closer to the key, which the asker asks next. The asker counts the steps and
 * steps around a node that fails to answer by asking the next candidate. Not thread-safe: runs on
 * the node's event loop.
 */
final class IterativeLookup {

    private static final int CANDIDATES = 3;

    private final ChordNode node;
    private final Id key;
    private final CompletableFuture<Route> result = new CompletableFuture<>();
    private final Set<NodeRef> failed = new HashSet<>();
    private int hops;
    /** Whether a timeout here counts towards suspecting the silent node (see {@link #failed}). */
    private final boolean maintenance;

    private IterativeLookup(ChordNode node, Id key, boolean maintenance) {
        this.node = node;
        this.key = key;
        this.maintenance = maintenance;
    }

    /** Looks {@code key} up starting from this node's own routing table. */
    static CompletableFuture<Route> fromTable(ChordNode node, Id key, boolean maintenance) {
        var lookup = new IterativeLookup(node, key, maintenance);
        lookup.answered(node.find(key));
        return lookup.result;
    }

    /** Looks {@code key} up starting at {@code first} (a bootstrap node when joining). */
    static CompletableFuture<Route> from(ChordNode node, NodeRef first, Id key) {
        var lookup = new IterativeLookup(node, key, true);
        lookup.ask(List.of(first));
        return lookup.result;
    }

    static int candidates() {
        return CANDIDATES;
    }

    private void answered(FindAnswer answer) {
        if (answer.done()) {
            result.complete(new Route(answer.nodes().get(0), answer.nodes().subList(1, answer.nodes().size()), hops));
        } else {
            ask(answer.nodes());
        }
    }

    private void ask(List<NodeRef> candidates) {
        var remaining = new ArrayList<NodeRef>();
        for (NodeRef c : candidates) {
            if (!failed.contains(c)) {
                remaining.add(c);
            }
        }
        if (remaining.isEmpty()) {
            fail(Reason.UNREACHABLE, "no live node left to ask about " + key);
            return;
        }
        if (hops >= node.settings().maxHops()) {
            fail(Reason.UNREACHABLE, "lookup of " + key + " took more than " + hops + " steps");
            return;
        }
        NodeRef next = remaining.remove(0);
        if (next.equals(node.self())) {
            answered(node.find(key));
            return;
        }
        hops++;
        node.request(next, MessageType.FIND, new ChordCodec.Writer().id(key).bytes(),
                node.settings().requestTimeout()).whenComplete((bytes, failure) -> {
                    if (failure != null) {
                        failed.add(next);
                        failed(next, failure);
                        ask(remaining);
                        return;
                    }
                    node.membership().heard(next);
                    try {
                        answered(FindAnswer.read(bytes));
                    } catch (RuntimeException e) {
                        failed.add(next);
                        ask(remaining);
                    }
                });
    }

    /** A node did not answer a FIND: only the ring's own lookups (joins, fingers) count its timeouts. */
    private void failed(NodeRef next, Throwable failure) {
        node.membership().noAnswer(next, failure, maintenance);
    }

    private void fail(Reason reason, String message) {
        result.completeExceptionally(new DhtException(reason, message));
    }

    /** A FIND answer: done with the key's successor list, or not done with closer nodes. */
    record FindAnswer(boolean done, List<NodeRef> nodes) {
        FindAnswer {
            if (nodes.isEmpty()) {
                throw new IllegalArgumentException("a FIND answer names at least one node");
            }
        }

        byte[] bytes() {
            return new ChordCodec.Writer().u8(done ? 1 : 0).nodes(nodes).bytes();
        }

        static FindAnswer read(byte[] bytes) {
            var in = new ChordCodec.Reader(bytes);
            return new FindAnswer(in.u8() == 1, in.nodes());
        }
    }
}
