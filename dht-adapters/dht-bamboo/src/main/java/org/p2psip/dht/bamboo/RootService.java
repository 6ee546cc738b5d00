package org.p2psip.dht.bamboo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.routing.NodeHandle;
import org.p2psip.dht.bamboo.storage.JeStorage;
import org.p2psip.dht.bamboo.storage.KeyValues;
import org.p2psip.dht.bamboo.storage.StoredValue;
import org.p2psip.dht.bamboo.storage.ValueStore.Removal;
import org.p2psip.dht.bamboo.wire.Message;
import org.p2psip.dht.bamboo.wire.Message.*;

/**
 * What a key's root does with an operation: runs it on its storage (every read-modify-write of
 * the node is serialised on the storage thread, which is how concurrent compare-and-sets of one
 * AOR are ordered), then copies the key's resulting values to its replicas, the leaf-set
 * members nearest the key, and acknowledges the write only once that many copies were stored:
 * a replica that does not answer Done is replaced by the next-nearest member, and a write that
 * runs out of members is answered as a failure, never as stored (see {@link Copies}). Runs on the
 * node's loop.
 */
final class RootService {

    private final BambooNode node;
    private final JeStorage storage;
    private final int replicas;
    private final OwnerRules ownerRules;

    RootService(BambooNode node, JeStorage storage, int replicas, OwnerRules ownerRules) {
        this.node = node;
        this.ownerRules = ownerRules;
        this.storage = storage;
        this.replicas = replicas;
    }

    CompletionStage<Message> execute(Keyed request) {
        Id key = request.key();
        if (request instanceof Get g) {
            return storage.get(key, g.max(), g.placemark()).thenApply(p -> new Values(p.values(), p.placemark()));
        } else if (request instanceof Put p) {
            return storage.put(key, p.value(), Duration.ofMillis(p.ttlMillis()), p.secretHash())
                    .thenCompose(v -> replicateCurrent(key)).thenApply(v -> new Done());
        } else if (request instanceof Remove r) {
            return storage.remove(key, r.valueHash(), r.secret()).thenCompose(removal -> removal == Removal.REMOVED
                    ? replicateCurrent(key).thenApply(v -> (Message) new Removed(removal))
                    : BambooNode.done(new Removed(removal)));
        } else if (request instanceof Swap s) {
            byte[] secretHash = Id.sha1(s.secret());
            boolean[] done = {false};
            return storage.update(key, current -> VersionedRecord.swap(current, key, s.expected(), s.set(), secretHash,
                    node.clock().millis(), done)).thenCompose(values -> outcome(key, values, done[0]));
        } else if (request instanceof Apply a) {
            return apply(a);
        } else if (request instanceof Forget f) {
            byte[] secretHash = Id.sha1(f.secret());
            boolean[] done = {false};
            return storage.update(key, current -> VersionedRecord.forget(current, key, f.version(), secretHash,
                    node.clock().millis(), done)).thenCompose(values -> outcome(key, values, done[0]));
        }
        throw new IllegalArgumentException("no root operation for " + request);
    }

    /**
     * Applies the change in one storage transaction; the answer carries the record written, or the
     * live one left, and the rules' answer. A change the ownerRules cannot read fails the transaction, and the asker hears
     * a Failure; nothing is written.
     */
    private CompletionStage<Message> apply(Apply a) {
        if (!Id.hash(a.aor()).equals(a.key())) {
            return BambooNode.done(new Failure(Reason.UNREACHABLE, "a change for " + a.aor() + " under another key"));
        }
        byte[] secretHash = Id.sha1(a.secret());
        Applied[] applied = {null};
        return storage.update(a.key(), current -> VersionedRecord.apply(current, a.key(), a.aor(), a.change(), ownerRules,
                        secretHash, node.clock().millis(), applied))
                .thenCompose(values -> applied[0].written()
                        ? replicate(a.key(), values).thenApply(v -> (Message) applied[0])
                        : BambooNode.done(applied[0]));
    }

    private CompletionStage<Message> outcome(Id key, List<StoredValue> values, boolean done) {
        if (!done) {
            StoredValue live = VersionedRecord.newestLive(values, node.clock().millis());
            return BambooNode.done(new Outcome(false, live == null ? new byte[0] : live.value()));
        }
        return replicate(key, values).thenApply(v -> new Outcome(true, new byte[0]));
    }

    private CompletionStage<Void> replicateCurrent(Id key) {
        return storage.values(key).thenCompose(values -> replicate(key, values));
    }

    /**
     * Stores the key's values on {@code replicas} leaf-set members, nearest the key first;
     * completes once that many answered Done, fails when the members run out first.
     */
    private CompletionStage<Void> replicate(Id key, List<StoredValue> values) {
        List<NodeHandle> candidates = new ArrayList<>(node.leafSet().nearest(key, Integer.MAX_VALUE));
        candidates.remove(node.self());
        var copies = new Copies(key, new Store(node.self(), List.of(new KeyValues(key, values))), candidates,
                Math.min(replicas, candidates.size()));
        return copies.start();
    }

    /**
     * One write's copies: {@code wanted} sent at once to the first candidates. A copy that fails
     * (refused, or no Done within the operation's deadline) is replaced by the next candidate; so
     * is one still unanswered after {@code timeout.max}, while it may yet answer (a loaded
     * replica is not a dead one, and a dead one should not hold the write for a whole deadline).
     * Succeeds at the {@code wanted}-th Done; fails when every copy sent has failed or answered and
     * fewer than {@code wanted} stored it.
     */
    private final class Copies {
        private final Id key;
        private final Store store;
        private final List<NodeHandle> candidates;
        private final int wanted;
        private final CompletableFuture<Void> outcome = new CompletableFuture<>();
        private int next;
        private int stored;
        private int outstanding;

        Copies(Id key, Store store, List<NodeHandle> candidates, int wanted) {
            this.key = key;
            this.store = store;
            this.candidates = candidates;
            this.wanted = wanted;
        }

        CompletableFuture<Void> start() {
            if (wanted == 0) {
                outcome.complete(null); // alone in the overlay: nobody to copy to
            }
            while (next < wanted) {
                sendNext();
            }
            return outcome;
        }

        private void sendNext() {
            NodeHandle target = candidates.get(next++);
            outstanding++;
            boolean[] replaced = {false};
            node.schedule(() -> {
                if (!outcome.isDone() && !replaced[0] && next < candidates.size()) {
                    replaced[0] = true;
                    sendNext();
                }
            }, node.maxTimeout());
            node.send(target, store, node.deadline()).whenComplete((m, e) -> {
                outstanding--;
                if (e == null && m instanceof Done) {
                    replaced[0] = true; // answered: its timer has nothing to replace
                    if (++stored == wanted) {
                        outcome.complete(null);
                    }
                } else if (!replaced[0] && next < candidates.size()) {
                    replaced[0] = true;
                    sendNext();
                } else if (outstanding == 0 && !outcome.isDone()) {
                    outcome.completeExceptionally(new DhtException(Reason.UNREACHABLE, "only " + stored + " of "
                            + wanted + " replicas of " + key + " stored: the write is on the root, not acknowledged"));
                }
            });
        }
    }
}
