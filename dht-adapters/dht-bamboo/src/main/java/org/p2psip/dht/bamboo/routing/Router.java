package org.p2psip.dht.bamboo.routing;

import org.p2psip.dht.ring.Id;

/**
 * Pastry's choice of the next hop towards a key: the leaf set when it covers the key, else the
 * routing-table entry sharing one more digit, else any known node at least as good in prefix and
 * nearer the key. Each step gets strictly closer, so a lookup cannot loop. Not thread-safe: owned
 * by the node's event loop with the tables it reads.
 */
public final class Router {

    private final NodeHandle self;
    private final LeafSet leafSet;
    private final RoutingTable table;

    public Router(NodeHandle self, LeafSet leafSet, RoutingTable table) {
        this.self = self;
        this.leafSet = leafSet;
        this.table = table;
    }

    /** Where to go next for {@code key}; this node itself when it is the key's root as far as it knows. */
    public Step next(Id key) {
        if (leafSet.covers(key)) {
            return new Step(leafSet.closest(key), true);
        }
        NodeHandle entry = table.next(key);
        if (entry != null) {
            return new Step(entry, false);
        }
        return new Step(rareCase(key), false);
    }

    /**
     * As {@link #next(Id)}, routing around the nodes in {@code avoid} (hops that did not answer):
     * the rare case's choice when the table's entry is one of them. When the leaf set covers the
     * key, its root is the leaf set's to judge, so the nearest member stays the answer.
     */
    public Step next(Id key, java.util.Set<Id> avoid) {
        if (avoid.isEmpty() || leafSet.covers(key)) {
            return next(key);
        }
        NodeHandle entry = table.next(key);
        if (entry != null && !avoid.contains(entry.id())) {
            return new Step(entry, false);
        }
        return new Step(rareCase(key, avoid), false);
    }

    /**
     * For a read whose root did not answer: as {@link #next(Id, java.util.Set)}, but when the leaf
     * set covers the key, the node nearest it (this one included) other than those in {@code
     * silent}: the replica that would be root without them. Never for a write, whose root is the
     * leaf set's alone to judge.
     */
    public Step nextForRead(Id key, java.util.Set<Id> silent) {
        if (!leafSet.covers(key)) {
            return next(key, silent);
        }
        NodeHandle best = self;
        for (NodeHandle n : leafSet.members()) {
            if (!silent.contains(n.id()) && Pastry.closer(key, n.id(), best.id())) {
                best = n;
            }
        }
        return new Step(best, true);
    }

    /**
     * As {@link #next(Id)} with {@code joiner} left out: the way for a node's lookup of its own
     * id when it joins, which must end at its nearest neighbour rather than at itself.
     */
    public Step nextForJoin(Id key, Id joiner) {
        if (leafSet.covers(key)) {
            NodeHandle best = self;
            for (NodeHandle n : leafSet.members()) {
                if (!n.id().equals(joiner) && Pastry.closer(key, n.id(), best.id())) {
                    best = n;
                }
            }
            return new Step(best, true);
        }
        NodeHandle entry = table.next(key);
        if (entry != null && !entry.id().equals(joiner)) {
            return new Step(entry, false);
        }
        return new Step(rareCase(key, java.util.Set.of(joiner)), false);
    }

    /**
     * The known node nearest {@code key} other than this one and {@code asker}, null when there
     * is none: where a node that is still joining sends a request on, since
     * tables made of the few nodes it has met so far are no ground to call itself a key's root.
     */
    public NodeHandle nearestOther(Id key, Id asker) {
        NodeHandle best = null;
        for (NodeHandle n : candidates()) {
            if (!n.id().equals(asker) && (best == null || Pastry.closer(key, n.id(), best.id()))) {
                best = n;
            }
        }
        return best;
    }

    private NodeHandle rareCase(Id key) {
        return rareCase(key, java.util.Set.of());
    }

    private NodeHandle rareCase(Id key, java.util.Set<Id> avoid) {
        int bits = table.bits();
        int shared = Pastry.sharedDigits(self.id(), key, bits);
        NodeHandle best = self;
        for (NodeHandle n : candidates()) {
            if (!avoid.contains(n.id()) && Pastry.sharedDigits(n.id(), key, bits) >= shared
                    && Pastry.closer(key, n.id(), best.id())) {
                best = n;
            }
        }
        return best;
    }

    private Iterable<NodeHandle> candidates() {
        var all = new java.util.ArrayList<>(leafSet.members());
        all.addAll(table.all());
        return all;
    }

    /**
     * A next hop; {@code last} when the deciding node's leaf set covers the key, so the hop is
     * the key's root as that node sees it.
     */
    public record Step(NodeHandle node, boolean last) {
    }
}
