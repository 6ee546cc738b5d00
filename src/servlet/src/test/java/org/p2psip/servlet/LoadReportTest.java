package org.p2psip.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The P2PSIP-Load figures, on a scripted clock, CPU time and queue. */
class LoadReportTest {

    private static final long MS = 1_000_000;
    private static final long SECOND = 1_000 * MS;

    private long wall = 5 * SECOND;
    private long cpu = 40 * SECOND;
    private long requests = 1_000;
    private long waited = 7 * SECOND;
    private final LoadReport report = new LoadReport(() -> new LoadReport.Reading(wall, cpu, 2, requests, waited));

    @Test
    void cpuIsCoresBusySinceThePreviousReportAndQueueTheMeanWaitOfTheRequestsSinceThen() {
        advance(SECOND, 420 * MS, 4, 14 * MS);
        assertEquals("cpu=0.42;cores=2;queue=3.5", report.header());
        advance(2 * SECOND, 3_200 * MS, 0, 0);
        assertEquals("cpu=1.60;cores=2;queue=0.0", report.header(), "more than one core busy; no request, no wait");
    }

    @Test
    void probesTooCloseTogetherGetTheLastReportAndTheNextSpanStartsAtIt() {
        advance(SECOND, 500 * MS, 2, 2 * MS);
        assertEquals("cpu=0.50;cores=2;queue=1.0", report.header());
        advance(LoadReport.MIN_SPAN_NANOS - 1, 90 * MS, 1, 100 * MS);
        assertEquals("cpu=0.50;cores=2;queue=1.0", report.header(), "a few milliseconds tell nothing");
        advance(SECOND - LoadReport.MIN_SPAN_NANOS + 1, 10 * MS, 1, 0);
        assertEquals("cpu=0.10;cores=2;queue=50.0", report.header(), "the span since the last report, the close probe's included");
    }

    @Test
    void theFirstReportCoversTheTimeSinceTheReportWasMade() {
        advance(4 * SECOND, SECOND, 0, 0);
        assertEquals("cpu=0.25;cores=2;queue=0.0", report.header());
    }

    @Test
    void aJvmThatCannotTellItsCpuTimeReportsTheQueueAlone() {
        var blind = new LoadReport(() -> new LoadReport.Reading(wall, -1, 2, requests, waited));
        advance(SECOND, 0, 2, 5 * MS);
        assertEquals("queue=2.5", blind.header());
    }

    private void advance(long wallNanos, long cpuNanos, long moreRequests, long moreWaitNanos) {
        wall += wallNanos;
        cpu += cpuNanos;
        requests += moreRequests;
        waited += moreWaitNanos;
    }
}
