package org.p2psip.dht.ring;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * One node's view of the ring: predecessor, successor list and finger table (paper §4). Not
 * thread-safe: used only on the node's loop, except {@link #rangePpm}.
 */
public final class FingerTable {

    private final NodeRef self;
    private final int successorCount;
    /** Entries the successor list holds at most; successorCount with one place per node. */
    private final int successorCap;
    private final NodeRef[] fingers = new NodeRef[Id.BITS];
    private NodeRef predecessor;
    private List<NodeRef> successors = List.of();
    /** A node that joined with nothing stored owns no key until its successor handed it its records. */
    private boolean awaitingRecords;
    /** See {@link #rangePpm}; kept on every change, for the metrics read from other threads. */
    private volatile long rangePpm = -1;

    /** Entries a successor list holds at most with several places per node (a STATE answer carries it). */
    public static final int MAX_SUCCESSORS = 64;

    /** The table of a node with one place on the ring: its successor list holds {@code successorCount} nodes. */
    public FingerTable(NodeRef self, int successorCount) {
        this(self, successorCount, 1);
    }

    /**
     * The table of one of a node's {@code places} places. Its successor list holds the nearest
     * successors until they name {@code successorCount} physical nodes other than this one's
     * (other addresses), at most {@code successorCount * places} entries and never more than
     * {@link #MAX_SUCCESSORS}: a node's neighbouring places may be its own or one other node's, and
     * the list must still reach past them to the other nodes that hold the replicas and that take
     * over when a whole node fails. With one place per node that is {@code successorCount} entries.
     */
    public FingerTable(NodeRef self, int successorCount, int places) {
        this.self = self;
        this.successorCount = successorCount;
        this.successorCap = places == 1 ? successorCount
                : (int) Math.min(MAX_SUCCESSORS, Math.max(successorCount, (long) successorCount * places));
        noteRange();
    }

    public NodeRef self() {
        return self;
    }

    public NodeRef predecessor() {
        return predecessor;
    }

    public void predecessor(NodeRef node) {
        this.predecessor = node != null && node.equals(self) ? null : node;
        noteRange();
    }

    /** The first successor; this node itself when it knows no other. */
    public NodeRef successor() {
        return successors.isEmpty() ? self : successors.get(0);
    }

    /** The successor list, this node excluded, nearest first. */
    public List<NodeRef> successors() {
        return successors;
    }

    /** Replaces the list with {@code first} followed by {@code rest}: duplicates and this node dropped, trimmed. */
    public void successors(NodeRef first, List<NodeRef> rest) {
        var list = new ArrayList<NodeRef>();
        list.add(first);
        list.addAll(rest);
        successors(list);
    }

    /** Replaces the list with {@code nodes} in order: duplicates and this node dropped, trimmed. */
    public void successors(List<NodeRef> nodes) {
        var list = new LinkedHashSet<>(nodes);
        list.remove(self);
        successors = trim(list);
        noteRange();
    }

    /** The nearest of {@code nodes} until they name enough other physical nodes (see the constructor). */
    private List<NodeRef> trim(java.util.Collection<NodeRef> nodes) {
        if (successorCap == successorCount) {
            return nodes.stream().limit(successorCount).toList();
        }
        var kept = new ArrayList<NodeRef>();
        var others = new java.util.HashSet<String>();
        for (NodeRef n : nodes) {
            if (kept.size() == successorCap || others.size() == successorCount) {
                break;
            }
            kept.add(n);
            if (!n.address().equals(self.address())) {
                others.add(n.address());
            }
        }
        return kept;
    }

    public NodeRef finger(int i) {
        return fingers[i];
    }

    public void finger(int i, NodeRef node) {
        fingers[i] = node;
    }

    /**
     * Takes {@code node}, named in some answer, as a finger hint: the finger whose interval
     * [self + 2^i, self + 2^(i+1)) holds it, when that finger is not known yet.
     */
    public void hint(NodeRef node) {
        java.math.BigInteger distance = self.id().distanceTo(node.id());
        int i = distance.bitLength() - 1;
        if (distance.signum() > 0 && fingers[i] == null) {
            fingers[i] = node;
        }
    }

    /**
     * Forgets a node that failed to answer, wherever it appears; but the last node this one
     * knows stays its successor (a node never concludes from silence alone that it is the only
     * one left: see {@link #abandon}).
     */
    public void remove(NodeRef failed) {
        if (failed.equals(predecessor)) {
            predecessor = null;
        }
        for (int i = 0; i < fingers.length; i++) {
            if (failed.equals(fingers[i])) {
                fingers[i] = null;
            }
        }
        List<NodeRef> rest = successors.stream().filter(n -> !n.equals(failed)).toList();
        if (rest.isEmpty()) {
            // fall back on the nearest node still known, so the ring can heal through it
            rest = knownNodes().stream().filter(n -> !n.equals(failed))
                    .min(Comparator.comparing(n -> self.id().distanceTo(n.id()))).map(List::of)
                    .orElse(successors);
        }
        successors = rest;
        noteRange();
    }

    /** Forgets {@code failed} even if it is the last node known: this node is then a ring of one. */
    public void abandon(NodeRef failed) {
        remove(failed);
        successors = successors.stream().filter(n -> !n.equals(failed)).toList();
        noteRange();
    }

    /**
     * The share of the ring this node owns, (predecessor, self], in millionths (the unit a node's
     * places are summed in): all of it alone, -1 while it has peers but no predecessor or awaits
     * its records (it owns nothing then, see {@link #owns}). With ids the hash of an address the
     * shares are uneven (two nodes split the ring anywhere from even to 999 to 1), and the busiest
     * node carries its share of the load: the bench reports it. Thread-safe, unlike the rest of
     * the table.
     */
    public long rangePpm() {
        return rangePpm;
    }

    private void noteRange() {
        rangePpm = predecessor == null && successors.isEmpty() ? Id.PPM
                : predecessor == null || awaitingRecords ? -1 : predecessor.id().ppmTo(self.id());
    }

    /**
     * Whether this node owns {@code key}: it lies in (predecessor, self]. A node alone owns every
     * key; a node with peers but no known predecessor owns none until one notifies it, so that it
     * never accepts writes for a range another node still serves.
     */
    public boolean owns(Id key) {
        if (predecessor == null || awaitingRecords) {
            return predecessor == null && successors.isEmpty();
        }
        return key.inHalfOpen(predecessor.id(), self.id());
    }

    /**
     * Whether this node joined with nothing stored and still waits for its successor's records: it
     * then owns no key (unless alone), so that it never answers "absent" for a binding its
     * successor holds, nor takes a write on an empty record that the stored one would later beat.
     */
    public boolean awaitingRecords() {
        return awaitingRecords;
    }

    public void awaitingRecords(boolean awaiting) {
        this.awaitingRecords = awaiting;
        noteRange();
    }

    /**
     * Known nodes strictly between this node and {@code key}, closest to the key first: where a
     * lookup goes next (paper's closest_preceding_finger, with fallbacks).
     */
    public List<NodeRef> closestPreceding(Id key, int count) {
        return knownNodes().stream()
                .filter(n -> n.id().inOpen(self.id(), key))
                .sorted(Comparator.comparing(n -> n.id().distanceTo(key)))
                .limit(count).toList();
    }

    private List<NodeRef> knownNodes() {
        var known = new LinkedHashSet<NodeRef>(successors);
        for (NodeRef f : fingers) {
            if (f != null) {
                known.add(f);
            }
        }
        if (predecessor != null) {
            known.add(predecessor);
        }
        known.remove(self);
        return new ArrayList<>(known);
    }
}
