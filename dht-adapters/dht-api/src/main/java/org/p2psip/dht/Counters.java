package org.p2psip.dht;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Named counters a node reports through {@code metrics()}. Thread-safe. */
public final class Counters {

    private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();

    public void increment(String name) {
        add(name, 1);
    }

    public void add(String name, long amount) {
        counters.computeIfAbsent(name, n -> new LongAdder()).add(amount);
    }

    public long get(String name) {
        LongAdder adder = counters.get(name);
        return adder == null ? 0 : adder.sum();
    }

    /** A sorted snapshot; names never incremented are absent unless {@code always} lists them. */
    public Map<String, Long> snapshot(String... always) {
        var snapshot = new TreeMap<String, Long>();
        for (String name : always) {
            snapshot.put(name, 0L);
        }
        counters.forEach((name, adder) -> snapshot.put(name, adder.sum()));
        return snapshot;
    }
}
