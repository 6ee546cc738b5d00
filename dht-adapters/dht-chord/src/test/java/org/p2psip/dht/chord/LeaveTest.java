package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;

/** A node that leaves gracefully hands its records to its successor. */
class LeaveTest {

    private static final int AORS = 1000;
    private final Clock clock = Clock.systemUTC();
    private Ring ring;

    @AfterEach
    void close() {
        ring.close();
    }

    @Test
    void withoutReplicasAGracefulLeaveStillLosesNothingBecauseItHandsItsKeysToItsSuccessor() {
        ring = new Ring(clock, false).with(ChordOptions.REPLICAS.name(), "0");
        for (int i = 0; i < 4; i++) {
            ring.add();
        }
        ring.awaitSettled();
        List<CompletableFuture<Boolean>> puts = new ArrayList<>();
        for (int i = 0; i < AORS; i++) {
            puts.add(ring.nodes.get(i % 4).put(set(i)).toCompletableFuture());
        }
        puts.forEach(put -> assertTrue(Ring.get(put)));

        ChordDht leaver = ring.byId().get(1);
        long itsRecords = leaver.metrics().get("chord.records");
        assertTrue(itsRecords > 0, "the leaving node should own some records");
        leaver.close();
        ring.nodes.remove(leaver);
        ring.awaitSettled();

        ChordDht reader = ring.nodes.get(0);
        for (int i = 0; i < AORS; i++) {
            assertEquals(set(i).stored(), Ring.get(reader.get(aor(i))), aor(i));
        }
    }

    private static String aor(int i) {
        return "sip:leave" + i + "@example.com";
    }

    private BindingSet set(int i) {
        var binding = new Binding(aor(i), "sip:leave" + i + "@10.9.0.1", 4_102_444_800_000L, 500, "c" + i, 1, List.of(), "", 0);
        return new BindingSet(aor(i), 0, 4_102_444_800_000L, List.of(binding));
    }
}
