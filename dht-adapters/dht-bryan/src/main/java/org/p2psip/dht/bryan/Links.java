package org.p2psip.dht.bryan;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.FingerTable;

/**
 * A peer's links as DHT-Link names them: predecessor (P), successors (S1..Sn) and fingers
 * (Fi = first peer at or after self + 2^i). The ring is Chord's, so the state and its rules are
 * the ring core's {@link FingerTable}; what is Bryan's is the one-hop routing through the
 * successor list and the headers. Not thread-safe: used only on the peer's loop.
 */
final class Links {

    private final FingerTable table;

    /** How many peers a 302 names at most. */
    static final int ALTERNATIVES = 3;

    Links(FingerTable table) {
        this.table = table;
    }

    FingerTable table() {
        return table;
    }

    /**
     * Where a message about {@code key} goes next (the 302's Contact): S1 when the key lies in
     * (self, S1]; S(i+1) when it lies in (Si, S(i+1)], since the successor list names consecutive
     * peers (one hop instead of two through Si, and on a ring no longer than the list every key is
     * one hop away); else the known peer closest before the key; this peer itself when it knows none.
     */
    NodeRef nextHop(Id key) {
        return nextHop(key, Set.of());
    }

    /**
     * The peers a 302 for {@code key} names: {@link #nextHop(Id)} first, then where this peer
     * would send it if those before did not answer, up to {@value #ALTERNATIVES} in all, so that
     * the asker can step around a dead peer this peer still lists (as Chord's find answers with
     * several candidates); empty when this peer knows none.
     */
    List<NodeRef> nextHops(Id key) {
        var out = new ArrayList<NodeRef>();
        var passed = new HashSet<NodeRef>();
        while (out.size() < ALTERNATIVES) {
            NodeRef next = nextHop(key, passed);
            if (next.equals(table.self()) || !passed.add(next)) {
                break;
            }
            out.add(next);
        }
        return out;
    }

    /**
     * As {@link #nextHop(Id)}, passing over the peers in {@code silent} (they did not answer this
     * operation): the successor after a silent one, else the closest known peer before the key
     * that is not silent; this peer itself when none is left.
     */
    NodeRef nextHop(Id key, Set<NodeRef> silent) {
        List<NodeRef> successors = table.successors();
        Id after = table.self().id();
        for (NodeRef s : successors) {
            if (key.inHalfOpen(after, s.id()) && !silent.contains(s)) {
                return s;
            }
            if (!silent.contains(s)) {
                after = s.id();
            }
        }
        return table.closestPreceding(key, silent.size() + 1).stream().filter(n -> !silent.contains(n)).findFirst()
                .orElse(successors.isEmpty() || silent.contains(successors.get(0)) ? table.self() : successors.get(0));
    }

    /** The DHT-Link headers describing this peer's P and S links, plus its distinct fingers if asked. */
    List<LinkHeader> headers(long expires, boolean withFingers) {
        var out = new ArrayList<LinkHeader>();
        if (table.predecessor() != null) {
            out.add(new LinkHeader(table.predecessor(), LinkHeader.Kind.P, 0, expires));
        }
        List<NodeRef> successors = table.successors();
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
