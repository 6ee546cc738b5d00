package org.p2psip.dht.bamboo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.p2psip.dht.bamboo.routing.Id;
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
 * members nearest the key, and answers only when each replica has answered or been dropped as
 * failed. Runs on the node's loop.
 */
final class RootService {

    private final BambooNode node;
    private final JeStorage storage;
    private final int replicas;

    RootService(BambooNode node, JeStorage storage, int replicas) {
        this.node = node;
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
            return storage.update(key, current -> VersionedRecord.swap(current, s.expected(), s.value(), s.expiresAt(),
                    secretHash, node.clock().millis(), done)).thenCompose(values -> outcome(key, values, done[0]));
        } else if (request instanceof Forget f) {
            byte[] secretHash = Id.sha1(f.secret());
            boolean[] done = {false};
            return storage.update(key, current -> VersionedRecord.forget(current, f.version(), secretHash,
                    node.clock().millis(), done)).thenCompose(values -> outcome(key, values, done[0]));
        }
        throw new IllegalArgumentException("no root operation for " + request);
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

    /** Sends the key's values to each replica; completes when every one answered or failed. */
    private CompletionStage<Void> replicate(Id key, List<StoredValue> values) {
        List<CompletableFuture<?>> sent = new ArrayList<>();
        var copy = List.of(new KeyValues(key, values));
        for (NodeHandle target : node.leafSet().nearest(key, replicas + 1)) {
            if (!target.equals(node.self())) {
                sent.add(node.send(target, new Store(node.self(), copy), node.maxTimeout())
                        .handle((m, e) -> null).toCompletableFuture());
            }
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    }
}
