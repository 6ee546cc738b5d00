package org.p2psip.dht.bryan;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.RoutingTable;

/**
 * A peer's links as DHT-Link names them: predecessor (P), successors (S1..Sn) and fingers
 * (Fi = first peer at or after self + 2^i). The ring is Chord's, so the state and its rules are
 * the ring core's {@link RoutingTable}; what is Bryan's is the one-hop routing through the
 * successor list and the headers. Not thread-safe: used only on the peer's loop.
 */
final class Links {

    private final RoutingTable table;

    Links(RoutingTable table) {
        this.table = table;
    }

    RoutingTable table() {
        return table;
    }

    /**
     * Where a message about {@code key} goes next (the 302's Contact): S1 when the key lies in
     * (self, S1]; S(i+1) when it lies in (Si, S(i+1)], since the successor list names consecutive
     * peers (one hop instead of two through Si, and on a ring no longer than the list every key is
     * one hop away); else the known peer closest before the key; this peer itself when it knows none.
     */
    NodeRef nextHop(Id key) {
        NodeRef successor = table.successor();
        if (key.inHalfOpen(table.self().id(), successor.id())) {
            return successor;
        }
        List<NodeRef> successors = table.successors();
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
