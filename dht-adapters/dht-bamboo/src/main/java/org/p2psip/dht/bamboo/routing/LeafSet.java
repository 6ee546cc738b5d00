package org.p2psip.dht.bamboo.routing;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.p2psip.dht.ring.Id;

/**
 * The nodes nearest to this one on the circle: up to {@code side} on each side, ordered by
 * distance. It decides the end of every lookup (the root of a key is the member, or this node,
 * nearest the key) and where replicas go. Not thread-safe: owned by the node's event loop.
 */
public final class LeafSet {

    private final NodeHandle self;
    private final int side;
    private final List<NodeHandle> clockwise = new ArrayList<>();
    private final List<NodeHandle> counter = new ArrayList<>();

    public LeafSet(NodeHandle self, int side) {
        this.self = self;
        this.side = Math.max(1, side);
    }

    /** Adds {@code node} if it is among the nearest on either side; true if the set changed. */
    public boolean add(NodeHandle node) {
        if (node.id().equals(self.id())) {
            return false;
        }
        boolean cw = insert(clockwise, node, Comparator.comparing(n -> self.id().distanceTo(n.id())));
        boolean ccw = insert(counter, node, Comparator.comparing(n -> n.id().distanceTo(self.id())));
        return cw || ccw;
    }

    /** Whether {@link #add} would take {@code node}: it is new and nearer than a side's farthest, or a side has room. */
    public boolean accepts(NodeHandle node) {
        if (node.id().equals(self.id()) || contains(node.id())) {
            return false;
        }
        if (clockwise.size() < side || counter.size() < side) {
            return true;
        }
        Id me = self.id();
        return me.distanceTo(node.id()).compareTo(me.distanceTo(clockwise.get(side - 1).id())) < 0
                || node.id().distanceTo(me).compareTo(counter.get(side - 1).id().distanceTo(me)) < 0;
    }

    public boolean remove(Id id) {
        boolean a = clockwise.removeIf(n -> n.id().equals(id));
        boolean b = counter.removeIf(n -> n.id().equals(id));
        return a || b;
    }

    public boolean contains(Id id) {
        return clockwise.stream().anyMatch(n -> n.id().equals(id)) || counter.stream().anyMatch(n -> n.id().equals(id));
    }

    /** Every member once, nearest first on alternating sides. */
    public List<NodeHandle> members() {
        Set<NodeHandle> all = new LinkedHashSet<>();
        for (int i = 0; i < side; i++) {
            if (i < clockwise.size()) {
                all.add(clockwise.get(i));
            }
            if (i < counter.size()) {
                all.add(counter.get(i));
            }
        }
        return List.copyOf(all);
    }

    /**
     * Whether {@code key} lies between the farthest members of the two sides, so that the node
     * nearest it is known here. A side not full, or sides that share a member (the two ways
     * round meet), mean the whole overlay is known.
     */
    public boolean covers(Id key) {
        if (clockwise.size() < side || counter.size() < side) {
            return true;
        }
        if (clockwise.stream().anyMatch(n -> counter.stream().anyMatch(m -> m.id().equals(n.id())))) {
            return true;
        }
        Id from = counter.get(counter.size() - 1).id();
        Id to = clockwise.get(clockwise.size() - 1).id();
        BigInteger span = from.distanceTo(to);
        return from.distanceTo(key).compareTo(span) <= 0;
    }

    /** The member or this node nearest {@code key}. */
    public NodeHandle closest(Id key) {
        NodeHandle best = self;
        for (NodeHandle n : members()) {
            if (Pastry.closer(key, n.id(), best.id())) {
                best = n;
            }
        }
        return best;
    }

    /** The {@code count} nodes (this one included) nearest {@code key}, nearest first: the key's root and its replicas. */
    public List<NodeHandle> nearest(Id key, int count) {
        List<NodeHandle> all = new ArrayList<>(members());
        all.add(self);
        all.sort((a, b) -> a.equals(b) ? 0 : Pastry.closer(key, a.id(), b.id()) ? -1 : 1);
        return List.copyOf(all.subList(0, Math.min(count, all.size())));
    }

    public NodeHandle self() {
        return self;
    }

    private boolean insert(List<NodeHandle> list, NodeHandle node, Comparator<NodeHandle> order) {
        if (list.stream().anyMatch(n -> n.id().equals(node.id()))) {
            return false;
        }
        list.add(node);
        list.sort(order);
        if (list.size() > side) {
            NodeHandle dropped = list.remove(list.size() - 1);
            return !dropped.equals(node);
        }
        return true;
    }
}
