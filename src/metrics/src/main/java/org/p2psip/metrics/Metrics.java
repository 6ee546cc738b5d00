package org.p2psip.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * A process's meters (Micrometer), exposed in Prometheus' text format by {@link #scrape()}, with
 * the JVM's memory, collector, threads, classes, CPU and uptime. The process's older flat counters
 * (maps of dotted names, as the backends' {@code metrics()} report them) are {@linkplain #follow
 * followed}: each name becomes a meter at the first scrape that sees it. Thread-safe.
 */
public final class Metrics implements AutoCloseable {

    /** A capital inside a name: "flowRequests" is the meter flow.requests (Prometheus: flow_requests). */
    private static final Pattern CAMEL_HUMP = Pattern.compile("(?<=[a-z0-9])([A-Z])");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final List<Followed> followed = new CopyOnWriteArrayList<>();

    public Metrics() {
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Makes every name in {@code values} a meter named {@code prefix.name}: a counter (Prometheus
     * {@code _total}) unless {@code isLevel} says it is a level that may go down (a gauge). The map
     * is read once per scrape, not once per meter.
     */
    public void follow(String prefix, Supplier<Map<String, Long>> values, Predicate<String> isLevel) {
        followed.add(new Followed(prefix, values, isLevel));
    }

    /** Every meter in the text format (version 0.0.4), the followed maps read afresh. */
    public String scrape() {
        followed.forEach(f -> f.refresh(registry));
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }

    /** One followed map: its last reading, and the names already made meters. */
    private static final class Followed {
        private final String prefix;
        private final Supplier<Map<String, Long>> values;
        private final Predicate<String> isLevel;
        private final Set<String> registered = ConcurrentHashMap.newKeySet();
        private volatile Map<String, Long> last = Map.of();

        Followed(String prefix, Supplier<Map<String, Long>> values, Predicate<String> isLevel) {
            this.prefix = prefix;
            this.values = values;
            this.isLevel = isLevel;
        }

        void refresh(MeterRegistry registry) {
            last = values.get();
            for (String name : last.keySet()) {
                if (registered.add(name)) {
                    String meter = prefix + "." + CAMEL_HUMP.matcher(name).replaceAll(".$1").toLowerCase(Locale.ROOT);
                    if (isLevel.test(name)) {
                        Gauge.builder(meter, this, f -> f.read(name)).register(registry);
                    } else {
                        FunctionCounter.builder(meter, this, f -> f.read(name)).register(registry);
                    }
                }
            }
        }

        double read(String name) {
            Long value = last.get(name);
            return value == null ? Double.NaN : value;
        }
    }
}
