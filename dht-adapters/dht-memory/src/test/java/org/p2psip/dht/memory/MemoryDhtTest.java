package org.p2psip.dht.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.contract.DhtContract;

class MemoryDhtTest extends DhtContract {

    @Override
    protected Dht createDht(Clock clock) {
        return new MemoryDht(clock, Duration.ofHours(1), ADD_CONTACT);
    }

    @Test
    void theSweepForgetsRecordsPastTheirRetention() {
        var memory = (MemoryDht) dht;
        String aor = "sip:old@example.com";
        assertTrue(await(memory.put(new BindingSet(aor, 0, clock.millis() + 1000, List.of()))));
        clock.advance(Duration.ofSeconds(2));
        memory.sweep();
        assertEquals(0L, memory.metrics().get("memory.records"));
        assertEquals(1L, memory.metrics().get("memory.swept"));
    }
}
