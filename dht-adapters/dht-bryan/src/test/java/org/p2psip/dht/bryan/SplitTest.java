package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.Id;

/**
 * Two peers that heard nothing from each other for long enough each carry on alone; once they
 * hear each other again they must form one ring again, or each keeps its own bindings for ever.
 * Each reports the share of the ring it serves: all of it alone, its part of the two afterwards,
 * and the writes each took alone are found through either afterwards.
 */
class SplitTest extends RingTest {

    private static final int SPLIT_WRITES = 50;
    private final List<String> splitWrites = new ArrayList<>();

    private static boolean readable(BryanDht through, String aor) {
        try {
            var found = through.get(aor).toCompletableFuture().get(10, TimeUnit.SECONDS).bindings();
            return found.size() == 1 && found.get(0).contact().endsWith("@10.0.0.2");
        } catch (Exception notYet) {
            return false; // the records may still be on their way to their owner: asked again
        }
    }

    @Test
    void twoPeersThatGaveUpOnEachOtherFormOneRingWhenTheyHearEachOtherAgain() throws Exception {
        // an operation deadline of 500 ms: a peer alone for 1 s takes itself for a ring of one
        ring = Peers.ring(2, Clock.systemUTC(), Map.of("p2psip.bryan.operation-timeout", "500ms"));
        ring.network.cut(true);
        Peers.await(() -> ring.live.stream().allMatch(p -> Peers.neighbours(p).successors().isEmpty()),
                "both peers to carry on alone");
        for (BryanDht alone : ring.live) {
            assertEquals(1000L, alone.metrics().get("bryan.range.permille"), "a peer alone serves the whole ring");
            for (int i = 0; i < SPLIT_WRITES; i++) {
                String aor = "sip:" + alone.self().id().toString().substring(0, 8) + "-" + i + "@split.example.com";
                assertTrue(alone.put(oneBinding(aor, "10.0.0.2")).toCompletableFuture().get(10, TimeUnit.SECONDS),
                        "a peer alone takes " + aor);
                splitWrites.add(aor);
            }
        }
        ring.network.cut(false);
        ring.awaitStable();
        for (BryanDht through : ring.live) {
            Peers.await(() -> splitWrites.stream().allMatch(aor -> readable(through, aor)),
                    "every write either side took alone read through " + through.self());
        }

        BryanDht first = ring.live.get(0);
        BryanDht second = ring.live.get(1);
        BigInteger circle = BigInteger.ONE.shiftLeft(Id.BITS);
        BigInteger firstRange = first.self().id().value().subtract(second.self().id().value()).mod(circle);
        assertEquals(firstRange.multiply(BigInteger.valueOf(1000)).divide(circle).longValue(),
                first.metrics().get("bryan.range.permille"), "the first peer's share of the ring, (second, first]");
        long both = first.metrics().get("bryan.range.permille") + second.metrics().get("bryan.range.permille");
        assertTrue(both == 999 || both == 1000, "together the two serve the ring: " + both);
        String aor = "sip:split@example.com";
        first.put(oneBinding(aor, "10.0.0.1")).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(1, second.get(aor).toCompletableFuture().get(10, TimeUnit.SECONDS).bindings().size(),
                "a binding written through one peer is read through the other");
    }
}
