package org.p2psip.dht.bryan;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.TreeMap;
import org.p2psip.dht.chord.Id;
import org.p2psip.dht.chord.NodeRef;

/**
 * A peer's links, as DHT-Link names them: predecessor (P), successors (S1..Sn) and fingers
 * (Fi = first peer at or after self + 2^i). Not thread-safe: used only on the peer's loop.
 */
final class Links {

    private final NodeRef self;
    private final int successorCount;
    private final TreeMap<Integer, NodeRef> fingers = new TreeMap<>();
    private NodeRef predecessor;
    private List<NodeRef> successors = List.of();

    Links(NodeRef self, int successorCount) {
        this.self = self;
        this.successorCount = successorCount;
    }

    NodeRef self() {
        return self;
    }

    NodeRef predecessor() {
        return predecessor;
    }

    void predecessor(NodeRef peer) {
        predecessor = self.equals(peer) ? null : peer;
    }

    /** S1, or this peer itself when it knows no other. */
    NodeRef successor() {
        return successors.isEmpty() ? self : successors.get(0);
    }

    List<NodeRef> successors() {
        return successors;
    }

    /** S1..Sn := the given peers in order, this peer and repeats left out, cut to n. */
    void successors(List<NodeRef> peers) {
        var list = new LinkedHashSet<>(peers);
        list.remove(self);
        successors = list.stream().limit(successorCount).toList();
    }

    void finger(int i, NodeRef peer) {
        if (peer.equals(self)) {
            fingers.remove(i);
        } else {
            fingers.put(i, peer);
        }
    }

    /** Takes {@code peer} as a finger hint: the finger whose interval [self + 2^i, self + 2^(i+1)) holds it. */
    void hint(NodeRef peer) {
        BigInteger distance = self.id().distanceTo(peer.id());
        if (distance.signum() > 0) {
            fingers.putIfAbsent(distance.bitLength() - 1, peer);
        }
    }

    /** Forgets a failed peer everywhere; the last successor known is kept unless {@code evenLast}. */
    void drop(NodeRef failed, boolean evenLast) {
        if (failed.equals(predecessor)) {
            predecessor = null;
        }
        fingers.values().removeIf(failed::equals);
        List<NodeRef> rest = successors.stream().filter(p -> !p.equals(failed)).toList();
        if (rest.isEmpty() && !evenLast) {
            rest = known().stream().filter(p -> !p.equals(failed)).min(clockwise()).map(List::of).orElse(successors);
        }
        successors = rest;
    }

    /**
     * Whether this peer is responsible for {@code key}: it lies in (P, self]. Alone, it is
     * responsible for everything; with peers but no predecessor yet, for nothing, so that it never
     * takes writes for a range another peer still serves.
     */
    boolean responsibleFor(Id key) {
        if (predecessor == null) {
            return successors.isEmpty();
        }
        return key.inHalfOpen(predecessor.id(), self.id());
    }

    /**
     * Where a message about {@code key} goes next (the 302's Contact): S1 when the key lies in
     * (self, S1]; S(i+1) when it lies in (Si, S(i+1)], since the successor list names consecutive
     * peers (one hop instead of two through Si, and on a ring no longer than the list every key is
     * one hop away); else the known peer closest before the key; this peer itself when it knows none.
     */
    NodeRef nextHop(Id key) {
        NodeRef successor = successor();
        if (key.inHalfOpen(self.id(), successor.id())) {
            return successor;
        }
        for (int i = 0; i + 1 < successors.size(); i++) {
            if (key.inHalfOpen(successors.get(i).id(), successors.get(i + 1).id())) {
                return successors.get(i + 1);
            }
        }
        return known().stream().filter(p -> p.id().inOpen(self.id(), key))
                .min(Comparator.comparing(p -> p.id().distanceTo(key))).orElse(successor);
    }

    /** Every peer this one knows, itself excluded. */
    List<NodeRef> known() {
        var all = new LinkedHashSet<NodeRef>(successors);
        all.addAll(fingers.values());
        if (predecessor != null) {
            all.add(predecessor);
        }
        all.remove(self);
        return new ArrayList<>(all);
    }

    Comparator<NodeRef> clockwise() {
        return Comparator.comparing(p -> self.id().distanceTo(p.id()));
    }

    /** The DHT-Link headers describing this peer's P and S links, plus its distinct fingers if asked. */
    List<LinkHeader> headers(long expires, boolean withFingers) {
        var out = new ArrayList<LinkHeader>();
        if (predecessor != null) {
            out.add(new LinkHeader(predecessor, LinkHeader.Kind.P, 0, expires));
        }
        for (int i = 0; i < successors.size(); i++) {
            out.add(new LinkHeader(successors.get(i), LinkHeader.Kind.S, i + 1, expires));
        }
        if (withFingers) {
            var seen = new LinkedHashSet<NodeRef>();
            fingers.forEach((i, peer) -> {
                if (seen.add(peer)) {
                    out.add(new LinkHeader(peer, LinkHeader.Kind.F, i, expires));
                }
            });
        }
        return out;
    }
}
