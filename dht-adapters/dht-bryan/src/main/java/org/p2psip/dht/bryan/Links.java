package org.p2psip.dht.bryan;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.RoutingTable;

/**
 * A peer's links, as DHT-Link names them: predecessor (P), successors (S1..Sn) and fingers
 * (Fi = first peer at or after self + 2^i). The ring is Chord's, so the state and its rules are
 * Chord's {@link RoutingTable}; what is Bryan's is the finger hints, the one-hop routing through
 * the successor list and the headers. Not thread-safe: used only on the peer's loop.
 */
final class Links {

    private final RoutingTable table;

    Links(NodeRef self, int successorCount) {
        this.table = new RoutingTable(self, successorCount);
    }

    NodeRef self() {
        return table.self();
    }

    NodeRef predecessor() {
        return table.predecessor();
    }

    void predecessor(NodeRef peer) {
        table.predecessor(peer);
    }

    /** Whether this peer joined with nothing stored and waits for its admitter's records (see {@link RoutingTable#awaitingRecords}). */
    boolean awaitingRecords() {
        return table.awaitingRecords();
    }

    void awaitingRecords(boolean awaiting) {
        table.awaitingRecords(awaiting);
    }

    /** The share of the ring this peer serves, in thousandths (see {@link RoutingTable#rangePermille}); thread-safe. */
    long rangePermille() {
        return table.rangePermille();
    }

    /** S1, or this peer itself when it knows no other. */
    NodeRef successor() {
        return table.successor();
    }

    List<NodeRef> successors() {
        return table.successors();
    }

    /** S1..Sn := the given peers in order, this peer and repeats left out, cut to n. */
    void successors(List<NodeRef> peers) {
        table.successors(peers);
    }

    void finger(int i, NodeRef peer) {
        table.finger(i, peer.equals(self()) ? null : peer);
    }

    /** Takes {@code peer} as a finger hint: the finger whose interval [self + 2^i, self + 2^(i+1)) holds it. */
    void hint(NodeRef peer) {
        BigInteger distance = self().id().distanceTo(peer.id());
        int i = distance.bitLength() - 1;
        if (distance.signum() > 0 && table.finger(i) == null) {
            table.finger(i, peer);
        }
    }

    /**
     * Forgets a failed peer everywhere. The last successor known is kept unless {@code evenLast}:
     * then this peer falls back on another peer it knows, or is a ring of one.
     */
    void drop(NodeRef failed, boolean evenLast) {
        if (evenLast) {
            table.abandon(failed);
        } else {
            table.remove(failed);
        }
    }

    /**
     * Whether this peer is responsible for {@code key}: it lies in (P, self]. Alone, it is
     * responsible for everything; with peers but no predecessor yet, for nothing, so that it never
     * takes writes for a range another peer still serves.
     */
    boolean responsibleFor(Id key) {
        return table.owns(key);
    }

    /**
     * Where a message about {@code key} goes next (the 302's Contact): S1 when the key lies in
     * (self, S1]; S(i+1) when it lies in (Si, S(i+1)], since the successor list names consecutive
     * peers (one hop instead of two through Si, and on a ring no longer than the list every key is
     * one hop away); else the known peer closest before the key; this peer itself when it knows none.
     */
    NodeRef nextHop(Id key) {
        NodeRef successor = successor();
        if (key.inHalfOpen(self().id(), successor.id())) {
            return successor;
        }
        List<NodeRef> successors = successors();
        for (int i = 0; i + 1 < successors.size(); i++) {
            if (key.inHalfOpen(successors.get(i).id(), successors.get(i + 1).id())) {
                return successors.get(i + 1);
            }
        }
        return table.closestPreceding(key, 1).stream().findFirst().orElse(successor);
    }

    /** The DHT-Link headers describing this peer's P and S links, plus its distinct fingers if asked. */
    List<LinkHeader> headers(long expires, boolean withFingers) {
        var out = new ArrayList<LinkHeader>();
        if (predecessor() != null) {
            out.add(new LinkHeader(predecessor(), LinkHeader.Kind.P, 0, expires));
        }
        List<NodeRef> successors = successors();
        for (int i = 0; i < successors.size(); i++) {
            out.add(new LinkHeader(successors.get(i), LinkHeader.Kind.S, i + 1, expires));
        }
        if (withFingers) {
            var seen = new LinkedHashSet<NodeRef>();
            for (int i = 0; i < Id.BITS; i++) {
                NodeRef peer = table.finger(i);
                if (peer != null && seen.add(peer)) {
                    out.add(new LinkHeader(peer, LinkHeader.Kind.F, i, expires));
                }
            }
        }
        return out;
    }
}
