package org.p2psip.dht.bamboo.routing;

import java.util.ArrayList;
import java.util.List;
import org.p2psip.dht.ring.Id;

/**
 * Pastry's prefix table: row {@code r} holds, for each digit value {@code c}, a node whose id
 * shares this node's first {@code r} digits and has {@code c} as digit {@code r}. Digits have
 * {@code bits} bits, so there are 160/bits rows of 2^bits columns. Not thread-safe: owned by the
 * node's event loop.
 */
public final class RoutingTable {

    private final NodeHandle self;
    private final int bits;
    private final NodeHandle[][] slots;

    public RoutingTable(NodeHandle self, int bits) {
        if (bits < 1 || bits > 8 || Id.BITS % bits != 0) {
            throw new IllegalArgumentException("digit bits must divide 160 and be 1..8, got " + bits);
        }
        this.self = self;
        this.bits = bits;
        this.slots = new NodeHandle[Id.BITS / bits][1 << bits];
    }

    /** Fills the node's slot if it is empty; true if the table changed. */
    public boolean add(NodeHandle node) {
        if (node.id().equals(self.id())) {
            return false;
        }
        int row = Pastry.sharedDigits(self.id(), node.id(), bits);
        int col = Pastry.digit(node.id(), row, bits);
        if (slots[row][col] != null) {
            return false;
        }
        slots[row][col] = node;
        return true;
    }

    /** Whether {@code node}'s slot is empty, so that {@link #add} would take it. */
    public boolean accepts(NodeHandle node) {
        if (node.id().equals(self.id())) {
            return false;
        }
        int row = Pastry.sharedDigits(self.id(), node.id(), bits);
        return slots[row][Pastry.digit(node.id(), row, bits)] == null;
    }

    public boolean contains(Id id) {
        int row = Pastry.sharedDigits(self.id(), id, bits);
        if (row >= slots.length) {
            return false;
        }
        NodeHandle n = slots[row][Pastry.digit(id, row, bits)];
        return n != null && n.id().equals(id);
    }

    public boolean remove(Id id) {
        int row = Pastry.sharedDigits(self.id(), id, bits);
        if (row >= slots.length) {
            return false;
        }
        int col = Pastry.digit(id, row, bits);
        if (slots[row][col] != null && slots[row][col].id().equals(id)) {
            slots[row][col] = null;
            return true;
        }
        return false;
    }

    public NodeHandle get(int row, int col) {
        return slots[row][col];
    }

    /** The entry that shares one more digit with {@code key} than this node does, or null. */
    public NodeHandle next(Id key) {
        int row = Pastry.sharedDigits(self.id(), key, bits);
        return row >= slots.length ? null : slots[row][Pastry.digit(key, row, bits)];
    }

    public List<NodeHandle> row(int row) {
        List<NodeHandle> out = new ArrayList<>();
        for (NodeHandle n : slots[row]) {
            if (n != null) {
                out.add(n);
            }
        }
        return out;
    }

    public List<NodeHandle> all() {
        List<NodeHandle> out = new ArrayList<>();
        for (int r = 0; r < slots.length; r++) {
            out.addAll(row(r));
        }
        return out;
    }

    public int rows() {
        return slots.length;
    }

    public int bits() {
        return bits;
    }
}
