package org.p2psip.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CountersTest {

    private final Counters counters = new Counters();

    @Test
    void countsByName() {
        counters.increment("x.gets");
        counters.increment("x.gets");
        counters.add("x.hops", 5);
        counters.add("x.hops", 2);
        assertEquals(2, counters.get("x.gets"));
        assertEquals(7, counters.get("x.hops"));
        assertEquals(0, counters.get("x.never"), "a name never counted is 0");
    }

    @Test
    void theSnapshotIsSortedAndListsTheAlwaysNamesAtZero() {
        counters.increment("x.puts");
        counters.increment("x.gets");
        Map<String, Long> snapshot = counters.snapshot("x.failures", "x.gets");
        assertEquals(List.of("x.failures", "x.gets", "x.puts"), new ArrayList<>(snapshot.keySet()));
        assertEquals(Map.of("x.failures", 0L, "x.gets", 1L, "x.puts", 1L), snapshot);
        assertEquals(Map.of("x.gets", 1L, "x.puts", 1L), counters.snapshot(), "without always: only what was counted");
    }

    @Test
    void theSnapshotIsACopyTheCallerMayAddTo() {
        counters.increment("x.gets");
        Map<String, Long> snapshot = counters.snapshot();
        snapshot.put("x.members", 3L);
        counters.increment("x.gets");
        assertEquals(1L, snapshot.get("x.gets"), "a snapshot does not move");
        assertEquals(Map.of("x.gets", 2L), counters.snapshot());
    }

    @Test
    void countsFromManyThreadsAddUp() throws Exception {
        var threads = new ArrayList<Thread>();
        for (int t = 0; t < 4; t++) {
            var thread = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    counters.increment("x.ops");
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(40_000, counters.get("x.ops"));
    }
}
