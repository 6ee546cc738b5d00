package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Percentiles from the histogram's buckets: nearest rank, read high by less than a bucket. */
class LatencyHistogramTest {

    @Test
    void percentilesAreNearestRankWithin10MicrosecondsBelow100Ms() {
        var h = new LatencyHistogram();
        for (int i = 1; i <= 100; i++) {
            h.record(i * 1000L); // 1..100 ms
        }
        assertEquals(50.01, h.percentileMillis(50), 1e-9);
        assertEquals(99.01, h.percentileMillis(99), 1e-9);
    }

    @Test
    void slowAnswersAreKeptToTheMillisecondAndBeyondTheRangeAtItsEnd() {
        var h = new LatencyHistogram();
        h.record(1_500_400);   // 1.5004 s
        assertEquals(1501.0, h.percentileMillis(50), 1e-9);
        h.record(999_000_000); // past 65.5 s
        assertTrue(h.percentileMillis(100) >= 65_536);
    }

    @Test
    void noSamplesHaveNoPercentile() {
        assertTrue(Double.isNaN(new LatencyHistogram().percentileMillis(50)));
    }
}
