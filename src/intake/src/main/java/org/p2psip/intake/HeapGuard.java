package org.p2psip.intake;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Whether admitting one more request could run the heap out. Every request the node takes leaves
 * its server transaction on the heap until Timer J (64 x T1, 32 s over UDP) after its answer, so
 * the heap a load needs is the rate times that window times the bytes a kept transaction costs,
 * beside what the node holds anyway (the container, the bindings it stores). A node that takes
 * more than its heap holds does not slow down gracefully: it runs full collections back to back
 * and dies of OutOfMemoryError, with every request it took unanswered.
 *
 * <p>After each collection the guard learns what the heap held and how many transactions were
 * kept then; what is not those transactions is the node's baseline. A new request is refused
 * when the baseline plus the transactions kept now would pass {@link #HEAP_SHARE} of the heap, or
 * when the last collection already left more than that: the estimate of a transaction's bytes
 * may be short (a proxied call keeps more than a REGISTER), the heap reading never is.
 *
 * <p>Pure arithmetic on readings handed in (the JVM's are wired by {@link #watchThisJvm}).
 * Thread-safe: message threads admit, the collector's notification thread reports.
 */
final class HeapGuard {

    /** The share of the old generation the guard lets the node fill; the rest is G1's room to collect in. */
    static final double HEAP_SHARE = 0.8;
    /**
     * What one request taken keeps on a node's heap until Timer J ends: its final answer's bytes
     * and address ({@link FinalAnswers}; the stack's transaction is gone 64 ms after the answer).
     * Measured as the live heap a steady REGISTER load left with the answers kept, less the live
     * heap once they were forgotten, over the answers (592 bytes; deploy/README.md, "Memory").
     */
    static final long TRANSACTION_BYTES = 600;
    /** How long a transaction stays after the request was taken: Timer J and its time in the node. */
    static final long KEPT_NANOS = 34_000_000_000L;
    private static final int BUCKETS = 34;
    private static final long BUCKET_NANOS = KEPT_NANOS / BUCKETS;
    private static final long NEVER = Long.MIN_VALUE;
    /** How long the guard refuses on a reading before it asks for a collection to read the heap afresh. */
    static final long ASK_AFTER_NANOS = 1_000_000_000L;
    /** The least time between two collections the guard asks for. */
    static final long ASK_EVERY_NANOS = 5_000_000_000L;

    /** The heap kept transactions and the node's own data share: the old generation. */
    private final long maxBytes;
    private final long transactionBytes;
    private final long[] admitted = new long[BUCKETS];
    private long bucket = Long.MIN_VALUE;
    /** The sum of {@link #admitted}, kept as the buckets change: every new request reads it. */
    private long kept;
    private long baselineBytes;
    private long lastUsedBytes;
    private long refusingSince = NEVER;
    private long lastAsked = NEVER;

    HeapGuard(long maxBytes, long transactionBytes) {
        this.maxBytes = maxBytes;
        this.transactionBytes = transactionBytes;
    }

    /** A guard of this JVM's heap, told after each of its collections what the heap held. */
    static HeapGuard watchThisJvm(java.util.function.LongSupplier nanos) {
        HeapGuard guard = new HeapGuard(oldGenerationBytes(), TRANSACTION_BYTES);
        // the heap's pools only: a collection reports every pool, metaspace and code cache too
        java.util.Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(pool -> pool.getType() == java.lang.management.MemoryType.HEAP)
                .map(java.lang.management.MemoryPoolMXBean::getName).collect(java.util.stream.Collectors.toSet());
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (collector instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener((notification, handback) -> {
                    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
                        var info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
                        long used = info.getGcInfo().getMemoryUsageAfterGc().entrySet().stream()
                                .filter(pool -> heapPools.contains(pool.getKey()))
                                .mapToLong(pool -> pool.getValue().getUsed()).sum();
                        guard.collected(used, nanos.getAsLong());
                    }
                }, null, null);
            }
        }
        return guard;
    }

    /**
     * The heap a kept transaction can live in: the heap less the young generation, which the
     * transactions leave within a few collections (they live 32 s). A node runs with a fixed young
     * generation (-Xmn, half the heap by default): the old generation has only the rest. Without
     * one, G1 shrinks the young generation as the old fills, to a tenth of the heap or so.
     */
    static long oldGenerationBytes() {
        long max = Runtime.getRuntime().maxMemory();
        long young = max / 10;
        var vm = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
        var newSize = vm.getVMOption("MaxNewSize");
        if (newSize.getOrigin() != com.sun.management.VMOption.Origin.DEFAULT
                && newSize.getOrigin() != com.sun.management.VMOption.Origin.ERGONOMIC) {
            young = Math.min(Long.parseLong(newSize.getValue()), max);
        }
        return Math.max(max / 10, max - young);
    }

    /** A collection that ended at {@code now} left {@code usedBytes} on the heap. */
    synchronized void collected(long usedBytes, long now) {
        roll(now);
        lastUsedBytes = usedBytes;
        baselineBytes = Math.max(0, usedBytes - kept() * transactionBytes);
    }

    /** Whether a new request taken at {@code now} is to be refused to keep the heap whole. */
    synchronized boolean full(long now) {
        roll(now);
        long limit = (long) (HEAP_SHARE * maxBytes);
        boolean full = lastUsedBytes > limit || baselineBytes + (kept() + 1) * transactionBytes > limit;
        if (!full) {
            refusingSince = NEVER;
        } else if (refusingSince == NEVER) {
            refusingSince = now;
        }
        return full;
    }

    /**
     * Whether to ask the JVM for a collection now: the guard has refused for a while on what the
     * last collection left. A young collection leaves the old generation's garbage in place (the
     * transactions that died there since the last mixed collection), and while the node refuses
     * it allocates too little for G1 to start marking: without a collection asked for, the heap
     * reading would stay as full as the flood left it and the node would refuse for good.
     */
    synchronized boolean wantsCollection(long now) {
        if (refusingSince == NEVER || now - refusingSince < ASK_AFTER_NANOS
                || (lastAsked != NEVER && now - lastAsked < ASK_EVERY_NANOS)) {
            return false;
        }
        lastAsked = now;
        return true;
    }

    /** A new request was taken at {@code now}: its transaction is kept from now on. */
    synchronized void admitted(long now) {
        roll(now);
        admitted[index(bucket)]++;
        kept++;
    }

    /** The requests taken in the last {@link #KEPT_NANOS}: their transactions are on the heap. */
    synchronized long kept() {
        return kept;
    }

    /** REGISTER/s this heap holds once the baseline is known: what the guard lets through at most. */
    synchronized long sustainableRate() {
        long room = (long) (HEAP_SHARE * maxBytes) - baselineBytes;
        return Math.max(0, room / transactionBytes * 1_000_000_000L / KEPT_NANOS);
    }

    /** Empties the buckets that fell out of the window since the last reading. */
    private void roll(long now) {
        long current = Math.floorDiv(now, BUCKET_NANOS);
        if (bucket == Long.MIN_VALUE || current - bucket >= BUCKETS) {
            java.util.Arrays.fill(admitted, 0);
            kept = 0;
        } else {
            for (long b = bucket + 1; b <= current; b++) {
                kept -= admitted[index(b)];
                admitted[index(b)] = 0;
            }
        }
        bucket = Math.max(bucket, current);
    }

    private static int index(long bucket) {
        return (int) Math.floorMod(bucket, (long) BUCKETS);
    }
}
