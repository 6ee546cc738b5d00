package org.p2psip.dht.hazelcast;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.LocalMapStats;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.p2psip.config.Config;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Counters;
import org.p2psip.dht.Dht;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;

/**
 * The Dht service on an embedded Hazelcast member: each AOR is one entry of an {@code IMap}, its
 * value the {@link BindingCodec} bytes of the stored {@link BindingSet}, with a time-to-live up to
 * the record's retention. Hazelcast partitions the map over the cluster's members and keeps
 * synchronous backups.
 *
 * <p>Compare-and-set is an entry processor sent with {@code submitToKey} ({@link CompareAndSet},
 * {@link CompareAndRemove}): the version check and the write run as one step on the partition's
 * owner, in one round trip, and set the entry's time-to-live in the same step. Hazelcast has no
 * asynchronous {@code replace(key, old, new)}, and that call would cost a read before every write.
 *
 * <p>Thread-safe. Every method returns at once: only the map's asynchronous calls are used, and
 * each has a deadline ({@link HazelcastOptions#OPERATION_TIMEOUT}). The returned stages complete on
 * this node's callback threads ({@link HazelcastOptions#CALLBACK_THREADS}), never on Hazelcast's
 * own, so a continuation may start the next operation; it must not block.
 */
public final class HazelcastDht implements Dht {

    private final HazelcastInstance member;
    private final IMap<String, byte[]> map;
    private final Clock clock;
    private final ForkJoinPool callbacks;
    private final Deadlines deadlines;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Counters counters = new Counters();
    private final OwnerRules ownerRules;

    HazelcastDht(HazelcastInstance member, Config node, Clock clock, OwnerRules ownerRules) {
        this.member = member;
        this.ownerRules = ownerRules;
        this.map = member.getMap(node.get(HazelcastOptions.MAP));
        this.clock = clock;
        String threads = "p2psip-hazelcast-" + member.getName();
        this.callbacks = callbackPool(node.get(HazelcastOptions.CALLBACK_THREADS), threads + "-callback-");
        this.deadlines = new Deadlines(node.get(HazelcastOptions.OPERATION_TIMEOUT), this::deliver, threads + "-deadlines");
    }

    /**
     * Starts this node's member and returns once it has joined the cluster named by the deployment's
     * secret (or, if no listed member answered within the join timeout, started one of its own).
     * Blocks for that: call it once when the node starts, never on the request path.
     *
     * @throws IllegalArgumentException if the overlay secret is empty or an address is malformed
     */
    public static HazelcastDht start(Config node, Clock clock, OwnerRules ownerRules) {
        HazelcastInstance member = Hazelcast.newHazelcastInstance(MemberConfig.from(node, ownerRules));
        settle(member, node.get(HazelcastOptions.JOIN_TIMEOUT));
        return new HazelcastDht(member, node, clock, ownerRules);
    }

    /** {@link #start(Config, Clock, OwnerRules)} for a member that applies no changes ({@link #update} refused). */
    public static HazelcastDht start(Config node, Clock clock) {
        return start(node, clock, OwnerRules.NONE);
    }

    /**
     * Has the partitions assigned now and waits (bounded) until this member holds no partition
     * still migrating to or from it. Otherwise the first requests after a start pay for the
     * assignment and for the migrations a joining member causes, and miss their deadline (seen:
     * 503 DHT Timeout for most of the first thousand REGISTERs of a two-member demo).
     */
    private static void settle(HazelcastInstance member, java.time.Duration limit) {
        member.getPartitionService().getPartitions();
        member.getPartitionService().forceLocalMemberToBeSafe(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletionStage<BindingSet> get(String aor) {
        counters.increment("hazelcast.gets");
        long now = clock.millis();
        return call("get", aor, () -> map.getAsync(aor), value -> StoredRecord.readAt(aor, value, now));
    }

    @Override
    public CompletionStage<Boolean> put(BindingSet next) {
        return putOrCurrent(next).thenApply(Optional::isEmpty);
    }

    /** One entry-processor call: a refused CompareAndSet answers the value that refused it. */
    @Override
    public CompletionStage<Optional<BindingSet>> putOrCurrent(BindingSet next) {
        counters.increment("hazelcast.puts");
        long now = clock.millis();
        // Hazelcast reads a TTL of 0 as "for ever": a record already past its retention lives 1 ms.
        long ttl = Math.max(1, next.retainUntil() - now);
        return call("put", next.aor(), () -> map.submitToKey(next.aor(),
                new CompareAndSet(next.version(), BindingCodec.encode(next.stored()), now, ttl)), refusedBy -> {
                    if (refusedBy == null) {
                        return Optional.<BindingSet>empty();
                    }
                    counters.increment("hazelcast.conflicts");
                    return Optional.of(StoredRecord.readAt(next.aor(), refusedBy.length == 0 ? null : refusedBy, now));
                });
    }

    @Override
    public boolean appliesChanges() {
        return ownerRules != OwnerRules.NONE;
    }

    /** One entry-processor call: the partition's owner applies the change with its rules ({@link ApplyChange}). */
    @Override
    public CompletionStage<Updated> update(String aor, byte[] change) {
        counters.increment("hazelcast.updates");
        long now = clock.millis();
        return call("update", aor, () -> map.submitToKey(aor, new ApplyChange(ownerRules, aor, change, now)), answer -> ApplyChange.read(aor, answer, now));
    }

    @Override
    public CompletionStage<Boolean> remove(String aor, long version) {
        counters.increment("hazelcast.removes");
        return call("remove", aor, () -> map.submitToKey(aor, new CompareAndRemove(version, clock.millis())), this::counted);
    }

    /** Yes: every stage completes on this node's callback threads, which do nothing else. */
    @Override
    public boolean completesOnWorkers() {
        return true;
    }

    @Override
    public Set<String> levels() {
        return Set.of("hazelcast.members", "hazelcast.owned-entries", "hazelcast.backup-entries");
    }

    /**
     * This node's counters and the member's view of the cluster. Reads only local state: safe to call
     * often.
     */
    @Override
    public Map<String, Long> metrics() {
        var metrics = counters.snapshot("hazelcast.gets", "hazelcast.puts", "hazelcast.updates", "hazelcast.removes", "hazelcast.conflicts",
                "hazelcast.failures");
        if (member.getLifecycleService().isRunning()) {
            LocalMapStats local = map.getLocalMapStats();
            metrics.put("hazelcast.members", (long) member.getCluster().getMembers().size());
            metrics.put("hazelcast.owned-entries", local.getOwnedEntryCount());
            metrics.put("hazelcast.backup-entries", local.getBackupEntryCount());
        }
        return metrics;
    }

    /** The embedded member, for operators and tests (cluster view, crash simulation); not for the request path. */
    public HazelcastInstance member() {
        return member;
    }

    /**
     * Leaves the cluster gracefully: Hazelcast moves this member's partitions to the others (for at
     * most {@link HazelcastOptions#SHUTDOWN_TIMEOUT}) before it stops. Blocks for that; idempotent.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                member.shutdown();
            } finally {
                deadlines.close();
                callbacks.shutdown(); // what is queued still runs: the callers learn CLOSED
            }
        }
    }

    /** Completes a caller's stage on a callback thread; after close(), on the closing thread, so none is left pending. */
    private void deliver(Runnable completion) {
        try {
            callbacks.execute(completion);
        } catch (RejectedExecutionException closing) {
            completion.run();
        }
    }

    /**
     * FIFO (async mode): answers are delivered in the order they came. Daemon threads whose context
     * class loader is this module's (the webapp's in Tomcat), as on the container's own threads.
     */
    private static ForkJoinPool callbackPool(int threads, String namePrefix) {
        var counter = new AtomicLong();
        ClassLoader loader = HazelcastDht.class.getClassLoader();
        return new ForkJoinPool(Math.max(1, threads), pool -> {
            ForkJoinWorkerThread t = new ForkJoinWorkerThread(pool) { };
            t.setName(namePrefix + counter.incrementAndGet());
            t.setDaemon(true);
            t.setContextClassLoader(loader);
            return t;
        }, null, true);
    }

    /** Starts {@code operation}, reads its answer with {@code read}, within the deadline; never throws. */
    private <S, T> CompletionStage<T> call(String op, String aor, Supplier<CompletionStage<S>> operation, Function<S, T> read) {
        if (closed.get()) {
            counters.increment("hazelcast.failures");
            return CompletableFuture.failedFuture(new DhtException(DhtException.Reason.CLOSED,
                    op + " " + aor + ": this node's Hazelcast DHT is closed"));
        }
        CompletionStage<S> started;
        try {
            started = operation.get(); // starts the call; Hazelcast itself may refuse at once (member shut down)
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        CompletionStage<T> bounded = deadlines.bound(op, aor, started, read, failure -> Failures.translate(op + " " + aor, failure));
        // the caller's stage completes only once a failure is counted, so that one who saw it fail
        // also sees it in metrics() (counted on a side branch, it raced with the caller's wake-up);
        // completed by hand, not by whenComplete's stage, to keep the DhtException unwrapped
        var result = new CompletableFuture<T>();
        bounded.whenComplete((value, failure) -> {
            if (failure != null) {
                counters.increment("hazelcast.failures");
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
        });
        return result;
    }

    private Boolean counted(Boolean stored) {
        if (!stored) {
            counters.increment("hazelcast.conflicts");
        }
        return stored;
    }
}
