package org.p2psip.dht.bamboo.routing;

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

    private NodeHandle rareCase(Id key) {
        int bits = table.bits();
        int shared = self.id().sharedDigits(key, bits);
        NodeHandle best = self;
        for (NodeHandle n : candidates()) {
            if (n.id().sharedDigits(key, bits) >= shared && key.closer(n.id(), best.id())) {
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
