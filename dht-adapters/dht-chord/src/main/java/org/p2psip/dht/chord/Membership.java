package org.p2psip.dht.chord;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * How a node finds and keeps its place on the ring (paper §4.4 and §5): join, stabilize,
 * notify, fix_fingers and check_predecessor, with the successor list of §5.2 and a graceful
 * leave. Not thread-safe: runs on the node's event loop.
 */
final class Membership {

    /** Stabilisations in a row that must find the ring agreed before a node calls itself settled. */
    static final int SETTLED_ROUNDS = 3;

    private final ChordNode node;
    private boolean stabilizing;
    private boolean fixing;
    private boolean checking;
    private int nextFinger;
    private long successorHeardNanos = System.nanoTime();
    /** The last successor this node gave up on when it found itself alone; null while it has peers. */
    private NodeRef lost;
    private boolean rejoining;
    /** The fresh predecessor this node is handing its records to; null when none. */
    private NodeRef handingTo;
    private int agreedRounds;
    private final List<CompletableFuture<Void>> settling = new ArrayList<>();

    Membership(ChordNode node) {
        this.node = node;
    }

    private RoutingTable table() {
        return node.table();
    }

    /**
     * Asks the bootstrap node (the first of {@code through}) for this node's successor, and while
     * it does not answer the others in turn, one per join-retry interval, until one answers or the
     * node closes: a node restarted while its bootstrap is down still finds the ring.
     */
    void join(List<NodeRef> through) {
        join(through, 0);
    }

    private void join(List<NodeRef> through, int attempt) {
        joinThrough(through.get(attempt % through.size())).thenAccept(joined -> {
            if (!joined && !node.isClosing()) {
                node.counters().increment("chord.join.retries");
                node.loop().schedule(() -> join(through, attempt + 1), node.settings().joinRetry().toMillis(),
                        TimeUnit.MILLISECONDS);
            }
        });
    }

    /** Looks this node's id up through {@code via}; on an answer naming another node, takes its place: true. Never fails. */
    private CompletableFuture<Boolean> joinThrough(NodeRef via) {
        return IterativeLookup.from(node, via, node.self().id()).handle((route, failure) -> {
            if (node.isClosing() || failure != null || !adopt(route)) {
                return false;
            }
            node.joined().complete(null);
            stabilize();
            return true;
        });
    }

    /**
     * A node without a bootstrap (the first of a deployment) looks itself up through each of the
     * other members in turn, and joins the first ring one of them answers for, fresh like any
     * other: a founder restarted after a crash would otherwise start a ring of its own beside the
     * one that carried on without it, and serve every key from an empty store. Only when none
     * answers does it start a ring; it then asks the first member again at every stabilisation
     * while alone, as a node that lost its last peer does ({@link #rejoin}).
     */
    void found(List<NodeRef> members) {
        tryMember(members, 0);
    }

    private void tryMember(List<NodeRef> members, int i) {
        if (node.isClosing()) {
            return;
        }
        if (i == members.size()) {
            foundUnlessAnyAnswers(members);
            return;
        }
        joinThrough(members.get(i)).thenAccept(joined -> {
            if (joined) {
                node.counters().increment("chord.founder.joined");
            } else {
                tryMember(members, i + 1);
            }
        });
    }

    /**
     * No lookup through a member found this node a place. When a member still answers a FIND (a
     * node answers it only once it is on a ring; a member starting beside this founder does not),
     * the ring lives and only the lookups failed (timed out under load, or routed through this node's
     * own address before the ring saw its crash): the founder tries the members again after the
     * join-retry interval. Founding a ring of its own then would serve the keys of its old range
     * from an empty store, beside the replicas that hold them. Only when none answers does it start
     * a ring.
     */
    private void foundUnlessAnyAnswers(List<NodeRef> members) {
        var pings = members.stream()
                .map(m -> request(m, MessageType.FIND, new Wire.Writer().id(node.self().id()).bytes())
                        .handle((answer, failure) -> failure == null))
                .toList();
        CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new)).thenRun(() -> node.loop().execute(() -> {
            if (node.isClosing()) {
                return;
            }
            if (pings.stream().anyMatch(CompletableFuture::join)) {
                node.counters().increment("chord.join.retries");
                node.loop().schedule(() -> tryMember(members, 0), node.settings().joinRetry().toMillis(),
                        TimeUnit.MILLISECONDS);
                return;
            }
            table().awaitingRecords(false);
            lost = members.get(0);
            node.joined().complete(null);
        }));
    }

    /**
     * A node alone again after it gave up on its last successor looks itself up through that node,
     * once per stabilisation until it finds another: silence under load is not a crash, and two
     * nodes that dropped each other would otherwise serve as two rings for ever, each taking every
     * write (seen: two Chord nodes overloaded while one was joining, for a whole bench run). The
     * records written on either side meet again through two hand-overs: this node's to its new
     * successor, and the other side's, a lone node's to its first peer ({@link #notified}).
     */
    private void rejoin() {
        if (rejoining) {
            return;
        }
        rejoining = true;
        IterativeLookup.from(node, lost, node.self().id()).whenComplete((route, failure) -> {
            rejoining = false;
            if (node.isClosing() || failure != null || !table().successor().equals(node.self()) || !adopt(route)) {
                return;
            }
            node.counters().increment("chord.rejoined");
            lost = null;
            // what this node took alone goes to the ring it rejoins: its successor keeps each record
            // with the higher stamp (with two nodes it owns them; more nodes are a known limit)
            node.storage().handOverAll(table().successor());
            stabilize();
        });
    }

    /** Takes the owner of this node's id and its successors as this node's successors; false if none is another node. */
    private boolean adopt(Route route) {
        var found = new ArrayList<NodeRef>();
        found.add(route.owner());
        found.addAll(route.successors());
        found.remove(node.self());
        if (found.isEmpty()) {
            return false;
        }
        table().successors(found.get(0), found.subList(1, found.size()));
        successorHeardNanos = System.nanoTime();
        return true;
    }

    /** Stabilize: learn the successor's predecessor and list, adopt a closer successor, notify it. */
    void stabilize() {
        if (stabilizing || !node.joined().isDone()) {
            return;
        }
        NodeRef successor = table().successor();
        if (successor.equals(node.self())) {
            NodeRef predecessor = table().predecessor();
            if (predecessor != null) {
                table().successors(predecessor, List.of()); // a ring of one meets its first peer
            } else if (lost != null) {
                rejoin();
            }
            agreed(predecessor == null && !table().awaitingRecords()); // alone: nobody to disagree with
            return;
        }
        lost = null; // not alone (any more): healed by a rejoin or by another node's notify
        stabilizing = true;
        request(successor, MessageType.STATE, new byte[0]).whenComplete((bytes, failure) -> {
            stabilizing = false;
            if (failure != null) {
                agreed(false);
                successorFailed(successor, failure);
                return;
            }
            node.heard(successor);
            successorHeardNanos = System.nanoTime();
            var in = new Wire.Reader(bytes);
            NodeRef between = in.u8() == 1 ? in.node() : null;
            List<NodeRef> rest = new ArrayList<>(in.nodes());
            rest.add(0, successor);
            if (between != null && between.id().inOpen(node.self().id(), successor.id())) {
                table().successors(between, rest);
            } else {
                table().successors(successor, rest.subList(1, rest.size()));
            }
            agreed(node.self().equals(between) && table().predecessor() != null && !table().awaitingRecords());
            request(table().successor(), MessageType.NOTIFY,
                    new Wire.Writer().node(node.self()).u8(table().awaitingRecords() ? 1 : 0).bytes());
        });
    }

    /**
     * Completes once {@link #SETTLED_ROUNDS} stabilisations in a row found this node's successor
     * naming it as predecessor, a predecessor known and its range handed in (or, alone, nothing to
     * wait for): joins, hand-overs and suspicions have calmed down around it.
     */
    CompletableFuture<Void> settled() {
        if (agreedRounds >= SETTLED_ROUNDS) {
            return CompletableFuture.completedFuture(null);
        }
        var next = new CompletableFuture<Void>();
        settling.add(next);
        return next;
    }

    /** A peer was dropped: the ring around this node is moving again. */
    void unsettle() {
        agreedRounds = 0;
    }

    private void agreed(boolean agreed) {
        agreedRounds = agreed ? agreedRounds + 1 : 0;
        if (agreedRounds >= SETTLED_ROUNDS && !settling.isEmpty()) {
            var waiting = List.copyOf(settling);
            settling.clear();
            waiting.forEach(f -> f.complete(null));
        }
    }

    /**
     * Drops a successor that did not answer. When it is the last node known, only after it has
     * been silent for twice the operation deadline: then this node carries on as a ring of one
     * (as the paper's Chord does), rather than failing every operation for ever.
     */
    private void successorFailed(NodeRef successor, Throwable failure) {
        node.failed(successor, failure);
        boolean lastKnown = table().successor().equals(successor);
        long silentNanos = System.nanoTime() - successorHeardNanos;
        if (lastKnown && silentNanos > 2 * node.settings().operationTimeout().toNanos()) {
            node.counters().increment("chord.isolated");
            table().abandon(successor);
            if (table().successor().equals(node.self())) {
                lost = successor;
            }
        }
    }

    /** This node's answer to STATE: its predecessor and successor list. */
    byte[] state() {
        var out = new Wire.Writer();
        NodeRef predecessor = table().predecessor();
        out.u8(predecessor == null ? 0 : 1);
        if (predecessor != null) {
            out.node(predecessor);
        }
        return out.nodes(table().successors()).bytes();
    }

    /**
     * Notify: {@code candidate} thinks it is this node's predecessor; {@code fresh} when it joined
     * with nothing stored and owns nothing until this node handed it its records.
     */
    void notified(NodeRef candidate, boolean fresh) {
        NodeRef old = table().predecessor();
        boolean restarted = fresh && candidate.equals(old);
        if (candidate.equals(node.self())
                || (old != null && !candidate.id().inOpen(old.id(), node.self().id()) && !restarted)) {
            return;
        }
        boolean wasAlone = old == null && table().successors().isEmpty();
        table().predecessor(candidate);
        if (fresh) {
            handIn(candidate, restarted ? null : old);
        } else if (old != null) {
            // a node joined between the old predecessor and this one: it now owns (old, candidate]
            node.storage().handOver(old.id(), candidate);
        } else if (wasAlone) {
            // a lone node meets its first peer (a join, or the other side of a healed split): the
            // peer owns everything outside (candidate, self] and keeps the copy with the higher stamp.
            // Not when only the predecessor was dropped (suspected under load): that full copy would
            // load both nodes again and could drop it again (seen: one every minute in a bench run)
            node.storage().handOver(node.self().id(), candidate);
        }
    }

    /**
     * Hands a fresh predecessor its records, then tells it so ({@link MessageType#HANDED}): a
     * newcomer between {@code old} and this node gets (old, candidate]; a node restarted on its
     * address (the same id, its old self still this node's predecessor) or one that finds this
     * node without a predecessor gets every record outside (candidate, self]: the replicas of its
     * own range and of those before it, which this node held as their successor. One hand-over
     * per candidate at a time; a failed one is tried again at its next notify, which stays fresh.
     */
    private void handIn(NodeRef candidate, NodeRef old) {
        if (candidate.equals(handingTo)) {
            return;
        }
        handingTo = candidate;
        Id from = old != null ? old.id() : node.self().id();
        node.storage().handOver(from, candidate).whenComplete((all, failure) -> {
            handingTo = null;
            if (Boolean.TRUE.equals(all) && !node.isClosing()) {
                node.counters().increment("chord.handed-in");
                request(candidate, MessageType.HANDED, new byte[0]);
            }
        });
    }

    /** HANDED from {@code sender}: when it is this node's successor, this node holds its range now. */
    void handed(String sender) {
        if (table().awaitingRecords() && table().successor().address().equals(sender)) {
            table().awaitingRecords(false);
        }
    }

    /** Refreshes the next finger whose start lies beyond the successor (one lookup per call). */
    void fixFingers() {
        if (fixing || !node.joined().isDone()) {
            return;
        }
        NodeRef successor = table().successor();
        while (nextFinger < Id.BITS && start(nextFinger).inHalfOpen(node.self().id(), successor.id())) {
            table().finger(nextFinger++, successor);
        }
        if (nextFinger >= Id.BITS) {
            nextFinger = 0;
            return;
        }
        int first = nextFinger;
        Id start = start(first);
        fixing = true;
        node.lookup(start, true).whenComplete((route, failure) -> {
            fixing = false;
            if (failure != null) {
                return;
            }
            // every finger whose start lies in [start, owner] has the same successor
            var reach = start.distanceTo(route.owner().id());
            int i = first;
            table().finger(i++, route.owner());
            while (i < Id.BITS && start.distanceTo(start(i)).compareTo(reach) <= 0) {
                table().finger(i++, route.owner());
            }
            nextFinger = i >= Id.BITS ? 0 : i;
        });
    }

    private Id start(int i) {
        return node.self().id().plusPowerOfTwo(i);
    }

    /** Check_predecessor: forget a predecessor that does not answer a ping. */
    void checkPredecessor() {
        NodeRef predecessor = table().predecessor();
        if (checking || predecessor == null) {
            return;
        }
        checking = true;
        request(predecessor, MessageType.PING, new byte[0]).whenComplete((bytes, failure) -> {
            checking = false;
            if (failure == null) {
                node.heard(predecessor);
            } else if (predecessor.equals(table().predecessor())) {
                node.failed(predecessor, failure);
            }
        });
    }

    /** A neighbour leaves gracefully: close the gap it leaves. */
    void leaving(Wire.Reader in) {
        NodeRef leaver = in.node();
        NodeRef itsPredecessor = in.u8() == 1 ? in.node() : null;
        List<NodeRef> itsSuccessors = in.nodes();
        boolean wasPredecessor = leaver.equals(table().predecessor());
        var known = new ArrayList<>(table().successors());
        table().abandon(leaver); // it said so: no need to wait for silence, even if it was the last peer
        if (wasPredecessor) {
            table().predecessor(itsPredecessor);
        }
        if (known.contains(leaver)) {
            known.remove(leaver);
            known.addAll(itsSuccessors);
            known.remove(node.self());
            known.sort(node.clockwise());
            if (!known.isEmpty()) {
                table().successors(known.get(0), known.subList(1, known.size()));
            }
        }
    }

    /** Tells successor and predecessor that this node leaves; completes when both answered or failed. */
    CompletableFuture<Void> announceLeave() {
        var out = new Wire.Writer().node(node.self());
        NodeRef predecessor = table().predecessor();
        out.u8(predecessor == null ? 0 : 1);
        if (predecessor != null) {
            out.node(predecessor);
        }
        byte[] message = out.nodes(table().successors()).bytes();
        var told = new ArrayList<CompletableFuture<byte[]>>();
        told.add(request(table().successor(), MessageType.LEAVING, message));
        if (predecessor != null && !predecessor.equals(table().successor())) {
            told.add(request(predecessor, MessageType.LEAVING, message));
        }
        return CompletableFuture.allOf(told.stream().map(f -> f.exceptionally(e -> null)).toArray(CompletableFuture[]::new));
    }

    private CompletableFuture<byte[]> request(NodeRef to, int type, byte[] payload) {
        return node.transport().request(to.address(), type, payload, node.settings().requestTimeout()).toCompletableFuture();
    }
}
