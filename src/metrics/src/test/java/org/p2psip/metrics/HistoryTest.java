package org.p2psip.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HistoryTest {

    private final AtomicLong clock = new AtomicLong(10_000);
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong sum = new AtomicLong();

    @Test
    void aRateIsTheCountsGrowthPerSecondAndAMeanTheSumsGrowthOverTheCounts() {
        var history = new History(10, clock::get).rate("rps", count::get).mean("ms", sum::get, count::get, 1.0);
        history.sample();                       // the first sample has nothing to compare with: 0
        clock.addAndGet(2_000);
        count.addAndGet(100);                   // 100 in 2 s
        sum.addAndGet(500);                     // 5 each
        history.sample();
        clock.addAndGet(2_000);                 // nothing in the next 2 s
        history.sample();
        assertEquals("{\"t\":[10000,12000,14000],\"rps\":[0,50,0],\"ms\":[0,5,0]}", history.json());
    }

    @Test
    void onlyTheLastCapacitySamplesAreKeptOldestFirst() {
        var history = new History(2, clock::get).rate("rps", count::get);
        for (int i = 0; i < 4; i++) {
            clock.addAndGet(1_000);
            count.addAndGet(i);
            history.sample();
        }
        assertEquals("{\"t\":[13000,14000],\"rps\":[2,3]}", history.json());
    }
}
