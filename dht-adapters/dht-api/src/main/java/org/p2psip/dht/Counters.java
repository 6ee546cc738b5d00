package org.p2psip.dht;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Named counters a backend reports through {@link Dht#metrics()}: one per name, made at its first
 * increment. LongAdder-backed, since the request path of every thread counts and {@code metrics()}
 * is read rarely. Thread-safe.
 */
public final class Counters {

    private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();

    public void increment(String name) {
        add(name, 1);
    }

    public void add(String name, long amount) {
        counters.computeIfAbsent(name, n -> new LongAdder()).add(amount);
    }

    /** The counter's value; 0 for a name never counted. */
    public long get(String name) {
        LongAdder adder = counters.get(name);
        return adder == null ? 0 : adder.sum();
    }

    /**
     * A sorted copy, the caller's to change (a backend adds gauges to it); names never counted are
     * absent unless {@code always} lists them, so that an operator sees a 0 rather than nothing.
     */
    public Map<String, Long> snapshot(String... always) {
        var snapshot = new TreeMap<String, Long>();
        for (String name : always) {
            snapshot.put(name, 0L);
        }
        counters.forEach((name, adder) -> snapshot.put(name, adder.sum()));
        return snapshot;
    }
}
