package org.p2psip.dht;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The DHT service the registrar and proxy use: asynchronous get, put and remove of an
 * address-of-record's bindings. The only view of storage the SIP side has.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>Every method returns at once; the work completes the returned stage, never on the
 *       caller's thread by waiting. Implementations are thread-safe.</li>
 *   <li>Every stage completes, normally or with a {@link DhtException}, within the backend's
 *       own deadline: a silent peer never leaves a stage pending for ever.</li>
 *   <li>{@link #put} and {@link #remove} are compare-and-set on the version a writer read with
 *       {@link #get}; concurrent writers of one AOR, through any nodes, are serialised by that.</li>
 *   <li>Expiry is absolute time ({@link Binding#expiresAt}, {@link BindingSet#retainUntil}) read
 *       from the node's clock: the nodes of one overlay need synchronised clocks.</li>
 *   <li>A put completed with {@code true} is acknowledged: a backend that replicates has written
 *       its replicas before it says so.</li>
 * </ul>
 */
public interface Dht extends AutoCloseable {

    /**
     * The AOR's record with only its live bindings; {@link BindingSet#absent} if the store holds
     * none or its retention has passed.
     */
    CompletionStage<BindingSet> get(String aor);

    /**
     * Stores {@code next} if the AOR's stored version is still {@code next.version()} (0: no
     * record). Completes {@code true} when stored (the version becomes {@code next.version() + 1})
     * and {@code false} when another writer came first, in which case nothing changed.
     */
    CompletionStage<Boolean> put(BindingSet next);

    /**
     * {@link #put}, and when another writer came first, the AOR's record as it now stands (what
     * {@link #get} would answer): completes empty when {@code next} was stored. A writer may then
     * start from a guess and apply its change again to what it gets back, without reading first:
     * compare-and-set keeps the guess harmless, since a wrong one is only refused. The registrar
     * writes with {@link #update}; the overlay simulator's workload writes so, from the version it
     * last saw acknowledged, and each backend implements {@link #put} with it. The default reads
     * after a refused put; a backend whose owner answers the conflict with the record overrides it.
     */
    default CompletionStage<Optional<BindingSet>> putOrCurrent(BindingSet next) {
        return put(next).thenCompose(stored -> stored
                ? CompletableFuture.completedFuture(Optional.<BindingSet>empty())
                : get(next.aor()).thenApply(Optional::of));
    }

    /**
     * Whether {@link #update} is served: the node that stores an AOR applies the {@link OwnerRules}
     * this backend was built with. False by default; the caller then reads and puts itself.
     */
    default boolean appliesChanges() {
        return false;
    }

    /**
     * Applies {@code change} to the AOR's record where the record is stored, with the backend's
     * {@link OwnerRules}, as one compare-and-set step there: one round trip, where a read and a put
     * cost two. Completes with what the rules decided there: the record as it then stands, whether
     * it was written, and the rules' answer for the change's maker ({@link Updated#answer}), so
     * that the maker answers without applying the rules again. Fails with {@link DhtException} as
     * a put does, and with {@link MalformedBindingException} when the owner could not read the
     * change (nothing written). Only when {@link #appliesChanges()}; otherwise the stage fails
     * with {@link UnsupportedOperationException}.
     */
    default CompletionStage<Updated> update(String aor, byte[] change) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getSimpleName()
                + " applies no changes at the owner"));
    }

    /**
     * Forgets the AOR's record if its stored version is still {@code version}. Completes
     * {@code true} when removed, {@code false} when the version had moved on or there was no record.
     */
    CompletionStage<Boolean> remove(String aor, long version);

    /**
     * Completes once this node has its place in the overlay and can serve; until then operations
     * may fail with {@link DhtException}. At once for a backend without an overlay to join.
     */
    default CompletionStage<Void> joined() {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Completes the next time this node's place in the overlay holds still: its neighbours agree
     * with it and any records it was due have been handed to it, so that the next operations do not
     * land on a ring still repairing itself. A node says it is ready only after this. By default
     * when joined: a backend without such a notion is settled once it serves.
     */
    default CompletionStage<Void> settled() {
        return joined();
    }

    /**
     * Whether this backend completes its stages on worker threads of its own, which may run a
     * caller's continuation at length (SIP work included), rather than on an event loop or an I/O
     * thread that the whole overlay waits on. The servlet then answers on that thread instead of
     * handing the answer to the container's executor: one thread hop less per request.
     */
    default boolean completesOnWorkers() {
        return false;
    }

    /** Counters for operators and the bench (operations, failures, lookup hops); names are the backend's. */
    default Map<String, Long> metrics() {
        return Map.of();
    }

    /**
     * The names among {@link #metrics()} that are levels (what is held now: records, a share, a
     * queue's length), which may go down, rather than counts since the start. Empty by default.
     */
    default Set<String> levels() {
        return Set.of();
    }

    /** Leaves the overlay (handing over what this node holds, where the backend can) and frees resources. */
    @Override
    void close();
}
