package org.p2psip.sipload;

/**
 * Latencies in fixed buckets, so that a long run at tens of thousands per second keeps a few
 * hundred KB instead of every sample: 10 us wide below 100 ms, 1 ms wide up to 65.5 s (past any
 * time-out the load uses). A percentile is read as its bucket's upper edge, so it errs high by
 * less than one bucket. Used by the load's one thread only.
 */
final class LatencyHistogram {
    private static final long FINE_MICROS = 10;
    private static final long FINE_LIMIT_MICROS = 100_000;
    private static final long COARSE_MICROS = 1_000;
    private static final long LIMIT_MICROS = 65_536_000;
    private static final int FINE_BUCKETS = (int) (FINE_LIMIT_MICROS / FINE_MICROS);
    private final long[] buckets = new long[FINE_BUCKETS + (int) ((LIMIT_MICROS - FINE_LIMIT_MICROS) / COARSE_MICROS) + 1];
    private long count;

    void record(long micros) {
        long value = Math.max(0, micros);
        int index = value < FINE_LIMIT_MICROS ? (int) (value / FINE_MICROS)
                : (int) Math.min(buckets.length - 1, FINE_BUCKETS + (value - FINE_LIMIT_MICROS) / COARSE_MICROS);
        buckets[index]++;
        count++;
    }

    long count() {
        return count;
    }

    /** The nearest-rank percentile {@code p} (0..100) in milliseconds; NaN without samples. */
    double percentileMillis(double p) {
        if (count == 0) {
            return Double.NaN;
        }
        long rank = Math.max(1, (long) Math.ceil(p / 100.0 * count));
        long seen = 0;
        for (int i = 0; i < buckets.length; i++) {
            seen += buckets[i];
            if (seen >= rank) {
                return upperEdgeMicros(i) / 1000.0;
            }
        }
        return LIMIT_MICROS / 1000.0;
    }

    private static long upperEdgeMicros(int index) {
        return index < FINE_BUCKETS ? (index + 1) * FINE_MICROS
                : FINE_LIMIT_MICROS + (index - FINE_BUCKETS + 1) * COARSE_MICROS;
    }
}
