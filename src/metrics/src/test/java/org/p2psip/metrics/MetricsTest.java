package org.p2psip.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MetricsTest {

    @Test
    void aFollowedCountIsACounterAndALevelAGaugeInPrometheusNaming() {
        var records = new AtomicLong(5);
        var lookups = new AtomicLong(12);
        try (var metrics = new Metrics()) {
            metrics.follow("p2psip.dht", () -> Map.of("chord.lookups", lookups.get(), "chord.records", records.get()),
                    "chord.records"::equals);
            String first = metrics.scrape();
            assertTrue(first.contains("# TYPE p2psip_dht_chord_lookups_total counter"), first);
            assertTrue(first.contains("p2psip_dht_chord_lookups_total 12.0"), first);
            assertTrue(first.contains("# TYPE p2psip_dht_chord_records gauge"), first);
            assertTrue(first.contains("p2psip_dht_chord_records 5.0"), first);
            records.set(3);
            lookups.set(20);
            String second = metrics.scrape();
            assertTrue(second.contains("p2psip_dht_chord_records 3.0"), second);
            assertTrue(second.contains("p2psip_dht_chord_lookups_total 20.0"), second);
        }
    }

    @Test
    void theJvmsMemoryAndCollectorsAreExposedInBaseUnits() {
        try (var metrics = new Metrics()) {
            String text = metrics.scrape();
            assertTrue(text.contains("jvm_memory_used_bytes{"), text);
            assertTrue(text.contains("process_uptime_seconds"), text);
        }
    }

    @Test
    void aNameSeenOnlyLaterBecomesAMeterAtTheNextScrape() {
        var values = new java.util.concurrent.ConcurrentHashMap<String, Long>();
        try (var metrics = new Metrics()) {
            metrics.follow("p2psip.node", () -> Map.copyOf(values), name -> false);
            metrics.scrape();
            values.put("register-200", 4L);
            assertTrue(metrics.scrape().contains("p2psip_node_register_200_total 4.0"));
        }
    }
}
