package org.p2psip.dht.bryan;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.store.Record;

/**
 * The records a peer holds, as responsible peer or replica, and the operations on them: the
 * compare-and-set of put and remove, copies to the replicas (the first r successors) before a
 * write is acknowledged, hand-overs to a new predecessor or, on leaving, to the successor, and the
 * sweep of expired records. Not thread-safe: runs on the peer's loop.
 *
 * <p>A write's copies are pipelined per replica (see {@link Pipe}): the writes made while a copy
 * REGISTER travels go together in the next one, and past the first at most {@code peer-window}
 * leave, each only with a full batch. Under load one peer
 * REGISTER then carries many writes instead of one each (on the servlet container a peer REGISTER
 * costs as much as a user's). Each copy REGISTER also waits until its oldest write is
 * {@code batch-linger} old or enough are waiting (as {@link Outbox} does).
 */
final class Store {

    private final BryanPeer peer;
    private final Clock clock;
    private final Map<Id, Record> records = new HashMap<>();
    private volatile int size;
    private boolean pushing;
    private Push lastPushed;
    private Push lastFailed;
    private final Map<NodeRef, CopyQueue> copyQueues = new HashMap<>();

    Store(BryanPeer peer, Clock clock) {
        this.peer = peer;
        this.clock = clock;
    }

    int size() {
        return size;
    }

    boolean holds(String aor) {
        Record r = records.get(Id.hash(aor));
        return r != null && r.set() != null;
    }

    Outcome get(Id key) {
        return withRecord(200, "OK", visible(key));
    }

    /** An answer carrying {@code current} as its body, or no body when the AOR has no record. */
    private Outcome withRecord(int status, String reason, BindingSet current) {
        if (!current.exists()) {
            return Outcome.of(status, reason, peer.self());
        }
        return new Outcome(status, reason, peer.self(), List.of(), RecordsBody.SET_TYPE, BindingCodec.encode(current));
    }

    /** @param asker the peer whose routed put this is (this peer for its own) */
    CompletableFuture<Outcome> put(OpHeader op, String contentType, byte[] body, NodeRef asker) {
        BindingSet next;
        try {
            if (!contentType.equals(RecordsBody.SET_TYPE)) {
                return done(400, "A put needs a body of " + RecordsBody.SET_TYPE);
            }
            next = BindingCodec.decode(body);
        } catch (MalformedBindingException e) {
            return done(400, "Bad bindings body: " + e.getMessage());
        }
        if (!Id.hash(next.aor()).equals(op.key()) || next.version() != op.version()) {
            return done(400, "The body's AOR or version differs from DHT-Op");
        }
        Record held = records.get(op.key());
        BindingSet current = visible(op.key());
        if (current.version() != next.version()) {
            // with the record as a get reads it, so that the writer can apply its change again at once
            return CompletableFuture.completedFuture(withRecord(412, "Conditional Request Failed", current));
        }
        return write(Record.of(next.stored(), stampAfter(held)), asker);
    }

    /** @param asker the peer whose routed remove this is (this peer for its own) */
    CompletableFuture<Outcome> remove(OpHeader op, NodeRef asker) {
        Record held = records.get(op.key());
        BindingSet current = visible(op.key());
        if (!current.exists() || current.version() != op.version()) {
            return done(412, "Conditional Request Failed");
        }
        long until = clock.millis() + peer.settings().tombstoneRetention().toMillis();
        return write(Record.removed(held.aor(), stampAfter(held), until), asker);
    }

    private BindingSet visible(Id key) {
        Record held = records.get(key);
        return held == null ? BindingSet.absent("") : held.visibleAt(clock.millis());
    }

    private static long stampAfter(Record held) {
        return held == null ? 1 : held.stamp() + 1;
    }

    /**
     * Stores a write and copies it to the replicas before it is acknowledged. When the asker of a
     * routed write is one of them, its copy travels in the 200 (a records body, which the asker
     * keeps before it acknowledges the write) instead of in a copy REGISTER of its own: with two
     * peers, half of all copies. An answer lost on the way fails the write at the asker, which
     * then acknowledged nothing; the next full copy to the replicas makes up for it. When a
     * replica did not take its copy (no answer in time, a refusal) the write is answered 503 and
     * not acknowledged, though it stays stored here.
     */
    private CompletableFuture<Outcome> write(Record record, NodeRef asker) {
        records.put(record.key(), record);
        size = records.size();
        List<NodeRef> targets = replicaTargets();
        boolean carried = !asker.equals(peer.self()) && targets.contains(asker);
        var copies = targets.stream().filter(target -> !(carried && target.equals(asker)))
                .map(target -> replicate(target, record)).toList();
        if (carried) {
            peer.counters().increment("bryan.copies.carried");
        }
        return allTaken(copies).thenApply(taken -> {
            if (!taken) {
                // stored here but not on every replica: not acknowledged (it may still be read)
                peer.counters().increment("bryan.writes.unreplicated");
                return Outcome.of(503, "Replica Did Not Take The Copy", peer.self());
            }
            return carried
                    ? new Outcome(200, "OK", peer.self(), List.of(), RecordsBody.TYPE, RecordsBody.encode(List.of(record), Integer.MAX_VALUE).get(0))
                    : Outcome.of(200, "OK", peer.self());
        });
    }

    /** Keeps the copy a write's 200 carried to this peer (see {@link #write}); false when the body is unreadable. */
    boolean keepCarried(Answer answer) {
        if (answer.status() != 200 || !RecordsBody.TYPE.equals(answer.contentType())) {
            return true;
        }
        try {
            merge(RecordsBody.decode(answer.body()));
            return true;
        } catch (MalformedBindingException e) {
            return false;
        }
    }

    /** Copies one write to a replica, in the next copy REGISTER to it; true when the replica took it, never fails. */
    private CompletableFuture<Boolean> replicate(NodeRef target, Record record) {
        CopyQueue queue = copyQueues.computeIfAbsent(target, t -> new CopyQueue());
        var taken = new CompletableFuture<Boolean>();
        if (queue.waiting.isEmpty()) {
            queue.firstNanos = System.nanoTime();
        }
        queue.records.merge(record.key(), record, (held, newer) -> newer.stamp() > held.stamp() ? newer : held);
        queue.waiting.add(taken);
        sendQueued(target, queue);
        return taken;
    }

    /** Sends the waiting copies if they may leave now (see {@link Pipe}). */
    private void sendQueued(NodeRef target, CopyQueue queue) {
        while (queue.pipe.mayLeave(peer, queue.records.size(), BryanSettings.ENOUGH_TO_SEND, queue.firstNanos,
                () -> sendQueued(target, queue))) {
            List<Record> batch = List.copyOf(queue.records.values());
            List<CompletableFuture<Boolean>> waiting = List.copyOf(queue.waiting);
            queue.records.clear();
            queue.waiting.clear();
            queue.pipe.left();
            peer.counters().increment("bryan.replica.batches");
            copyTo(List.of(target), batch).whenComplete((all, ignored) -> {
                queue.pipe.answered();
                waiting.forEach(w -> w.complete(Boolean.TRUE.equals(all)));
                sendQueued(target, queue);
            });
        }
        if (queue.waiting.isEmpty() && queue.pipe.idle()) {
            copyQueues.remove(target, queue);
        }
    }

    /** The writes waiting for the next copy REGISTER to one replica (the newest record per key). */
    private static final class CopyQueue {
        final Map<Id, Record> records = new LinkedHashMap<>();
        final List<CompletableFuture<Boolean>> waiting = new ArrayList<>();
        long firstNanos;
        final Pipe pipe = new Pipe();
    }

    private CompletableFuture<Outcome> done(int status, String reason) {
        return CompletableFuture.completedFuture(Outcome.of(status, reason, peer.self()));
    }

    /** Keeps every received copy newer than what this peer holds. */
    void merge(List<Record> copies) {
        for (Record copy : copies) {
            records.merge(copy.key(), copy, (held, received) -> received.stamp() > held.stamp() ? received : held);
        }
        size = records.size();
    }

    List<NodeRef> replicaTargets() {
        return peer.links().successors().stream().limit(peer.settings().replicas()).toList();
    }

    /**
     * Copies what this peer is responsible for to its replicas when they or its range changed
     * since the last complete copy, and at least once per refresh interval. A copy that failed is
     * not tried again for the same replicas and range before the refresh interval has passed:
     * each write is copied on its own anyway, and retrying at once a full copy that an overloaded
     * replica could not take fed the overload (two peers past their capacity pushed 160,000
     * records every few seconds and never recovered).
     */
    void maintainReplicas() {
        if (pushing || !peer.joined().isDone()) {
            return;
        }
        List<NodeRef> targets = replicaTargets();
        NodeRef predecessor = peer.links().predecessor();
        long refresh = peer.settings().replicaRefresh().toNanos();
        if (Push.lately(lastPushed, targets, predecessor, refresh) || Push.lately(lastFailed, targets, predecessor, refresh)) {
            return;
        }
        pushing = true;
        peer.counters().increment("bryan.replica.pushes");
        copyTo(targets, held(r -> peer.links().responsibleFor(r.key()))).whenComplete((all, ignored) -> {
            pushing = false;
            var push = new Push(targets, predecessor, System.nanoTime());
            if (Boolean.TRUE.equals(all)) {
                lastPushed = push;
                lastFailed = null;
            } else {
                lastFailed = push;
            }
        });
    }

    /** A full copy to {@code to} while this peer's predecessor was {@code predecessor}, ended at {@code atNanos}. */
    private record Push(List<NodeRef> to, NodeRef predecessor, long atNanos) {

        /** Whether {@code push} went to the same replicas for the same range within {@code refreshNanos}. */
        static boolean lately(Push push, List<NodeRef> to, NodeRef predecessor, long refreshNanos) {
            return push != null && push.to.equals(to) && Objects.equals(push.predecessor, predecessor)
                    && System.nanoTime() - push.atNanos < refreshNanos;
        }
    }

    /**
     * The records in (from, to] go to {@code to}: with {@code from} this peer's own id, every record
     * outside this peer's range once {@code to} is its predecessor.
     */
    CompletableFuture<Boolean> handOver(Id from, NodeRef to) {
        return copyTo(List.of(to), held(r -> r.key().inHalfOpen(from, to.id())));
    }

    CompletableFuture<Boolean> handOverAll(NodeRef to) {
        return copyTo(List.of(to), held(r -> true));
    }

    void sweep() {
        long now = clock.millis();
        records.values().removeIf(r -> r.forgettableAt(now));
        size = records.size();
    }

    private List<Record> held(Predicate<Record> which) {
        return records.values().stream().filter(which).toList();
    }

    /**
     * Sends the records to every target (DHT-Op: copy, in batches); true when all were taken, never
     * fails. Each target gets its batches one after another, the next once the last was taken, and
     * none after one that was not: a copy of many records (a full push is thousands of REGISTERs)
     * then never floods a peer's container with all of them at once.
     */
    private CompletableFuture<Boolean> copyTo(List<NodeRef> targets, List<Record> copies) {
        if (targets.isEmpty() || copies.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        var bodies = new RecordsBody.Bodies(copies, peer.settings().copyBatchBytes());
        return allTaken(targets.stream().map(target -> copyInTurn(target, bodies, 0)).toList());
    }

    /** True once every copy was taken, false once all answered and one was not; never fails. */
    private static CompletableFuture<Boolean> allTaken(List<CompletableFuture<Boolean>> copies) {
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new))
                .thenApply(answered -> copies.stream().allMatch(CompletableFuture::join));
    }

    private CompletableFuture<Boolean> copyInTurn(NodeRef target, RecordsBody.Bodies bodies, int next) {
        if (!bodies.has(next)) {
            return CompletableFuture.completedFuture(true);
        }
        PeerRequest request = peer.request((int) peer.linkExpires(), List.of(),
                new OpHeader(OpHeader.Op.COPY, null, -1), RecordsBody.TYPE, bodies.get(next));
        return peer.send(target, request, peer.settings().requestTimeout())
                .handle((answer, failure) -> failure == null && answer.status() == 200)
                .thenCompose(taken -> {
                    if (!taken) {
                        peer.counters().increment("bryan.replica.failures");
                        return CompletableFuture.completedFuture(false);
                    }
                    return copyInTurn(target, bodies, next + 1);
                });
    }
}
