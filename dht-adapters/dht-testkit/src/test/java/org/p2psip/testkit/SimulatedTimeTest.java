package org.p2psip.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SimulatedTimeTest {

    @Test
    void tasksRunInSimulatedTimeOrderAndTheClockMovesOnlyByThem() {
        var time = new SimulatedTime();
        var ran = new ArrayList<String>();
        time.schedule(() -> ran.add("b@" + time.nanos()), 20, TimeUnit.MILLISECONDS);
        time.schedule(() -> ran.add("a@" + time.nanos()), 10, TimeUnit.MILLISECONDS);
        time.execute(() -> time.schedule(() -> ran.add("c@" + time.nanos()), 15, TimeUnit.MILLISECONDS));
        long before = System.nanoTime();
        time.runFor(TimeUnit.HOURS.toNanos(1));
        assertTrue(System.nanoTime() - before < TimeUnit.SECONDS.toNanos(5), "an hour simulated in seconds");
        assertEquals(List.of("a@10000000", "c@15000000", "b@20000000"), ran);
        assertEquals(TimeUnit.HOURS.toNanos(1), time.nanos());
        assertEquals(3_600_000L, time.clock().millis() - new SimulatedTime().clock().millis());
    }

    @Test
    void aCancelledTaskNeverRunsAndAPeriodicOneRunsEveryPeriod() {
        var time = new SimulatedTime();
        var ticks = new ArrayList<Long>();
        time.scheduleWithFixedDelay(() -> ticks.add(time.nanos() / 1_000_000), 100, 100, TimeUnit.MILLISECONDS);
        var cancelled = time.schedule(() -> ticks.add(-1L), 50, TimeUnit.MILLISECONDS);
        cancelled.cancel(false);
        time.runFor(TimeUnit.MILLISECONDS.toNanos(450));
        assertEquals(List.of(100L, 200L, 300L, 400L), ticks);
    }
}
