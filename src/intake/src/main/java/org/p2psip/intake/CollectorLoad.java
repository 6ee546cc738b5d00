package org.p2psip.intake;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Whether the JVM is collecting itself to a standstill: the share of the last second spent in
 * collector pauses. A node short of heap (every transaction is kept until Timer J, 32 s over UDP,
 * beside the bindings it stores) first pauses more and more, then runs full collections back to
 * back, and every request it takes meanwhile only adds to the heap; past a limit it sheds
 * new requests until the collector has caught up (the limit: {@link #DEFAULT_LIMIT}, or as configured). Sampled every tenth of a second by the
 * intake's control thread; {@link #overloaded} is a volatile read. Thread-safe.
 */
final class CollectorLoad {

    /** Share of wall time in collector pauses above which the node sheds, unless configured. */
    static final double DEFAULT_LIMIT = 0.3;
    private static final int SAMPLES = 10;
    static final long SAMPLE_MILLIS = 100;

    private final LongSupplier collectionMillis;
    private volatile double limit = DEFAULT_LIMIT;
    private final long[] window = new long[SAMPLES];
    private int next;
    private volatile boolean overloaded;

    CollectorLoad(LongSupplier collectionMillis) {
        this.collectionMillis = collectionMillis;
        long now = collectionMillis.getAsLong();
        java.util.Arrays.fill(window, now);
    }

    /** The JVM's own collectors. */
    static CollectorLoad ofThisJvm() {
        List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
        return new CollectorLoad(() -> collectors.stream().mapToLong(c -> Math.max(0, c.getCollectionTime())).sum());
    }

    /** Takes one sample; called every {@value #SAMPLE_MILLIS} ms. */
    synchronized void sample() {
        long now = collectionMillis.getAsLong();
        long oldest = window[next];
        window[next] = now;
        next = (next + 1) % SAMPLES;
        overloaded = now - oldest > limit * SAMPLES * SAMPLE_MILLIS;
    }

    void limit(double share) {
        limit = share;
    }

    boolean overloaded() {
        return overloaded;
    }
}
