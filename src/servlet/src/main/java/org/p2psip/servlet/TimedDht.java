package org.p2psip.servlet;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.Updated;
import org.p2psip.dht.DhtException;

/**
 * A {@link Dht} that times each of the servlet's operations: {@code p2psip_dht_operation_seconds}
 * by kind (get, put, put-or-current, update, remove) and outcome (ok; unchanged, an update its
 * owner wrote nothing for; conflict, a compare-and-set that found another version; or the
 * failure's reason, timeout, unreachable, overloaded...), as a
 * Prometheus histogram. Everything else goes to the backend as it is.
 */
final class TimedDht implements Dht {

    /**
     * The histogram's buckets: a dozen, from a local store's millisecond to the deadline's seconds
     * (Micrometer's own percentile histogram has about sixty a timer, each a line of every scrape).
     */
    private static final Duration[] BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5),
        Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(50), Duration.ofMillis(100),
        Duration.ofMillis(200), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
        Duration.ofSeconds(5)};

    /** The outcomes that are answers, not failures. */
    private static final Set<String> ANSWERED = Set.of("ok", "conflict");

    private final Dht dht;
    private final MeterRegistry registry;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    TimedDht(Dht dht, MeterRegistry registry) {
        this.dht = dht;
        this.registry = registry;
    }

    @Override
    public CompletionStage<BindingSet> get(String aor) {
        return timed("get", dht.get(aor), value -> "ok");
    }

    @Override
    public CompletionStage<Boolean> put(BindingSet next) {
        return timed("put", dht.put(next), stored -> stored ? "ok" : "conflict");
    }

    @Override
    public CompletionStage<Optional<BindingSet>> putOrCurrent(BindingSet next) {
        return timed("put-or-current", dht.putOrCurrent(next), current -> current.isEmpty() ? "ok" : "conflict");
    }

    @Override
    public boolean appliesChanges() {
        return dht.appliesChanges();
    }

    @Override
    public CompletionStage<Updated> update(String aor, byte[] change) {
        return timed("update", dht.update(aor, change), updated -> updated.written() ? "ok" : "unchanged");
    }

    @Override
    public CompletionStage<Boolean> remove(String aor, long version) {
        return timed("remove", dht.remove(aor, version), removed -> removed ? "ok" : "conflict");
    }

    private <T> CompletionStage<T> timed(String kind, CompletionStage<T> operation, Function<T, String> outcome) {
        long started = System.nanoTime();
        return operation.whenComplete((value, failure) -> {
            long took = System.nanoTime() - started;
            timer(kind, failure == null ? outcome.apply(value)
                    : DhtException.from(failure).reason().name().toLowerCase(Locale.ROOT))
                    .record(took, TimeUnit.NANOSECONDS);
        });
    }

    /** Kinds and outcomes are a few fixed words, so the timers stay few. */
    private Timer timer(String kind, String outcome) {
        return timers.computeIfAbsent(kind + " " + outcome, key -> Timer.builder("p2psip.dht.operation")
                .description("DHT operations of the servlet, by kind and outcome")
                .tag("kind", kind).tag("outcome", outcome)
                .serviceLevelObjectives(BUCKETS)
                .register(registry));
    }

    @Override
    public CompletionStage<Void> joined() {
        return dht.joined();
    }

    @Override
    public CompletionStage<Void> settled() {
        return dht.settled();
    }

    @Override
    public boolean completesOnWorkers() {
        return dht.completesOnWorkers();
    }

    @Override
    public Map<String, Long> metrics() {
        return dht.metrics();
    }

    @Override
    public Set<String> levels() {
        return dht.levels();
    }

    /** Operations completed so far, for the status page's charts (read from the timers). */
    double operations() {
        return timers.values().stream().mapToDouble(Timer::count).sum();
    }

    /** Their time in all, in nanoseconds. */
    double nanos() {
        return timers.values().stream().mapToDouble(t -> t.totalTime(TimeUnit.NANOSECONDS)).sum();
    }

    /** Those that failed (any outcome but ok and conflict). */
    double failures() {
        return timers.values().stream().filter(t -> !ANSWERED.contains(t.getId().getTag("outcome")))
                .mapToDouble(Timer::count).sum();
    }

    @Override
    public void close() {
        dht.close();
    }
}
