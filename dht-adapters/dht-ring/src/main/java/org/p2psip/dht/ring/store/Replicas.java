package org.p2psip.dht.ring.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.Counters;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeThread;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.SendWindow;
import org.p2psip.dht.ring.RingSettings;

/**
 * Carries an owner's writes to its replicas, pipelined per replica ({@link SendWindow}): the writes
 * made while a copy travels wait, and leave together in the next one (the newest record per key).
 * An idle owner sends each write at once; a loaded one sends one message for many writes, so the
 * cost of replication per write falls as the load rises instead of staying one request each.
 * Each write still completes only when its own copy was taken or not. Not thread-safe: runs on
 * the node's loop.
 */
final class Replicas {

    private final PacedTransfer copies;
    private final NodeThread loop;
    private final RingSettings settings;
    private final Counters counters;
    private final String prefix;
    private final Map<NodeRef, Queue> queues = new HashMap<>();
    private boolean failedSinceAsked;

    Replicas(PacedTransfer copies, NodeThread loop, RingSettings settings, Counters counters, String prefix) {
        this.copies = copies;
        this.loop = loop;
        this.settings = settings;
        this.counters = counters;
        this.prefix = prefix;
    }

    /** Copies {@code record} to every target; completes true when all took it, never fails. */
    CompletableFuture<Boolean> copy(List<NodeRef> targets, Record record) {
        if (targets.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        var taken = new ArrayList<CompletableFuture<Boolean>>(targets.size());
        for (NodeRef target : targets) {
            Queue queue = queues.computeIfAbsent(target, t -> new Queue(new SendWindow(loop, settings.copyWindow(),
                    settings.copyLinger())));
            taken.add(queue.add(record, loop.nanoTime()));
            send(target, queue);
        }
        return PacedTransfer.allTaken(taken);
    }

    /** Whether a copy failed since the last call: a replica may then miss records. */
    boolean failedSinceAsked() {
        boolean failed = failedSinceAsked;
        failedSinceAsked = false;
        return failed;
    }

    /** Sends the waiting copies if they may leave now (see {@link SendWindow}). */
    private void send(NodeRef target, Queue queue) {
        while (queue.pipe.mayLeave(queue.records.size(), SendWindow.ENOUGH, queue.firstNanos, () -> send(target, queue))) {
            List<Record> batch = List.copyOf(queue.records.values());
            List<CompletableFuture<Boolean>> waiting = List.copyOf(queue.waiting);
            queue.records.clear();
            queue.waiting.clear();
            queue.pipe.left();
            counters.increment(prefix + ".replica.batches");
            counters.add(prefix + ".replica.copies", batch.size());
            copies.to(List.of(target), batch).whenComplete((all, ignored) -> {
                boolean taken = Boolean.TRUE.equals(all);
                failedSinceAsked |= !taken;
                queue.pipe.answered();
                waiting.forEach(w -> w.complete(taken));
                send(target, queue);
            });
        }
        if (queue.waiting.isEmpty() && queue.pipe.idle()) {
            queues.remove(target, queue);
        }
    }

    /** The writes waiting for the next copy to one replica (the newest record per key). */
    private static final class Queue {
        final Map<Id, Record> records = new LinkedHashMap<>();
        final List<CompletableFuture<Boolean>> waiting = new ArrayList<>();
        final SendWindow pipe;
        long firstNanos;

        Queue(SendWindow pipe) {
            this.pipe = pipe;
        }

        CompletableFuture<Boolean> add(Record record, long nowNanos) {
            if (waiting.isEmpty()) {
                firstNanos = nowNanos;
            }
            records.merge(record.key(), record, (held, newer) -> newer.stamp() > held.stamp() ? newer : held);
            var taken = new CompletableFuture<Boolean>();
            waiting.add(taken);
            return taken;
        }
    }
}
