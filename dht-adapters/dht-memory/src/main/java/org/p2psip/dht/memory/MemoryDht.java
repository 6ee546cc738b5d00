package org.p2psip.dht.memory;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Counters;
import org.p2psip.dht.Dht;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;

/**
 * Bindings in this node's own memory: nodes running it share nothing. For unit tests and single
 * nodes. Compare-and-set is the map's atomic {@code compute}; records past their retention are
 * filtered on read and swept by one background thread.
 */
public final class MemoryDht implements Dht {

    private final Clock clock;
    private final Map<String, BindingSet> records = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sweeper;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Counters counters = new Counters();
    private final OwnerRules ownerRules;

    public MemoryDht(Clock clock, Duration sweepInterval) {
        this(clock, sweepInterval, OwnerRules.NONE);
    }

    /** A node that applies changes with {@code ownerRules} ({@link #update}). */
    public MemoryDht(Clock clock, Duration sweepInterval, OwnerRules ownerRules) {
        this.clock = clock;
        this.ownerRules = ownerRules;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "memory-dht-sweeper");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(1, sweepInterval.toMillis());
        sweeper.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletionStage<BindingSet> get(String aor) {
        if (closed.get()) {
            return closedFailure();
        }
        counters.increment("memory.gets");
        long now = clock.millis();
        return CompletableFuture.completedFuture(visible(aor, records.get(aor), now));
    }

    @Override
    public CompletionStage<Boolean> put(BindingSet next) {
        return putOrCurrent(next).thenApply(Optional::isEmpty);
    }

    @Override
    public CompletionStage<Optional<BindingSet>> putOrCurrent(BindingSet next) {
        if (closed.get()) {
            return closedFailure();
        }
        counters.increment("memory.puts");
        long now = clock.millis();
        BindingSet[] refusedBy = {null};
        records.compute(next.aor(), (aor, current) -> {
            BindingSet visible = visible(aor, current, now);
            if (visible.version() != next.version()) {
                refusedBy[0] = visible;
                return current;
            }
            return next.stored();
        });
        if (refusedBy[0] != null) {
            counters.increment("memory.conflicts");
        }
        return CompletableFuture.completedFuture(Optional.ofNullable(refusedBy[0]));
    }

    @Override
    public boolean appliesChanges() {
        return ownerRules != OwnerRules.NONE;
    }

    /** The change applied inside the map's atomic {@code compute}, as an owner applies it. */
    @Override
    public CompletionStage<Updated> update(String aor, byte[] change) {
        if (closed.get()) {
            return closedFailure();
        }
        counters.increment("memory.updates");
        long now = clock.millis();
        Updated[] result = {null};
        try {
            records.compute(aor, (key, current) -> {
                BindingSet visible = visible(key, current, now);
                Updated decided = ownerRules.next(visible, change, now);
                if (!decided.written()) {
                    result[0] = decided.about(visible);
                    return current;
                }
                result[0] = decided.about(decided.record().stored());
                return result[0].record();
            });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return CompletableFuture.completedFuture(result[0]);
    }

    @Override
    public CompletionStage<Boolean> remove(String aor, long version) {
        if (closed.get()) {
            return closedFailure();
        }
        long now = clock.millis();
        boolean[] removed = {false};
        records.computeIfPresent(aor, (key, current) -> {
            if (current.retainUntil() > now && current.version() == version) {
                removed[0] = true;
                return null;
            }
            return current;
        });
        return CompletableFuture.completedFuture(removed[0]);
    }

    @Override
    public Set<String> levels() {
        return Set.of("memory.records");
    }

    @Override
    public Map<String, Long> metrics() {
        var metrics = counters.snapshot("memory.gets", "memory.puts", "memory.updates", "memory.conflicts", "memory.swept");
        metrics.put("memory.records", (long) records.size());
        return metrics;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            sweeper.shutdownNow();
            records.clear();
        }
    }

    /** Forgets records past their retention; bindings inside kept records are filtered on read. */
    void sweep() {
        long now = clock.millis();
        records.forEach((aor, set) -> {
            if (set.retainUntil() <= now && records.remove(aor, set)) {
                counters.increment("memory.swept");
            }
        });
    }

    /** What a reader sees of {@code stored} at {@code now}: absent past its retention, else its live bindings. */
    private static BindingSet visible(String aor, BindingSet stored, long now) {
        return stored == null || stored.retainUntil() <= now ? BindingSet.absent(aor) : stored.liveAt(now);
    }

    private static <T> CompletionStage<T> closedFailure() {
        return CompletableFuture.failedFuture(new DhtException(DhtException.Reason.CLOSED, "the memory DHT is closed"));
    }
}
