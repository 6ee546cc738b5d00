package org.p2psip.dht.chord;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.p2psip.overlay.Counters;

/**
 * Carries an owner's writes to its replicas with at most one STORE in flight per replica: the
 * writes made while a STORE travels wait and leave together in the next one. An idle owner sends
 * each write at once; a loaded one sends one frame for many writes, so the cost of replication
 * per write falls as the load rises instead of staying one request (frame, HMAC, syscalls) each.
 * Each write still completes only when its own STORE was answered or failed. Not thread-safe:
 * used only on the node's event loop.
 */
final class Replication {

    private final ChordNode node;
    private final Counters counters;
    private final Map<String, Pipe> pipes = new HashMap<>();
    private boolean failedSinceAsked;

    Replication(ChordNode node, Counters counters) {
        this.node = node;
        this.counters = counters;
    }

    /** Copies {@code record} to every target; completes true when all answered, never fails. */
    CompletableFuture<Boolean> copy(List<NodeRef> targets, Record record) {
        if (targets.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        var copies = new ArrayList<CompletableFuture<Boolean>>(targets.size());
        for (NodeRef target : targets) {
            copies.add(pipes.computeIfAbsent(target.address(), Pipe::new).add(record));
        }
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new))
                .thenApply(done -> copies.stream().allMatch(CompletableFuture::join));
    }

    /** Whether a copy failed since the last call: a replica may then miss records. */
    boolean failedSinceAsked() {
        boolean failed = failedSinceAsked;
        failedSinceAsked = false;
        return failed;
    }

    /** The writes waiting for one replica, and whether a STORE to it is in flight. */
    private final class Pipe {
        private final String address;
        private List<Record> waiting = new ArrayList<>();
        private List<CompletableFuture<Boolean>> waiters = new ArrayList<>();
        private boolean inFlight;

        Pipe(String address) {
            this.address = address;
        }

        CompletableFuture<Boolean> add(Record record) {
            var copied = new CompletableFuture<Boolean>();
            waiting.add(record);
            waiters.add(copied);
            if (!inFlight) {
                send();
            }
            return copied;
        }

        private void send() {
            // encode only what the first STORE can carry, not every waiting record
            byte[] payload = Storage.batch(waiting);
            int count = (int) new Wire.Reader(payload).u64();
            List<CompletableFuture<Boolean>> answered = List.copyOf(waiters.subList(0, count));
            waiting = new ArrayList<>(waiting.subList(count, waiting.size()));
            waiters = new ArrayList<>(waiters.subList(count, waiters.size()));
            inFlight = true;
            counters.increment("chord.replica.stores");
            counters.add("chord.replica.copies", count);
            node.transport().request(address, MessageType.STORE, payload, node.settings().requestTimeout())
                    .whenComplete((answer, failure) -> {
                        if (failure != null) {
                            counters.increment("chord.replica.failures");
                            failedSinceAsked = true;
                        }
                        answered.forEach(w -> w.complete(failure == null));
                        inFlight = false;
                        if (!waiting.isEmpty()) {
                            send();
                        } else {
                            pipes.remove(address, this);
                        }
                    });
        }
    }
}
