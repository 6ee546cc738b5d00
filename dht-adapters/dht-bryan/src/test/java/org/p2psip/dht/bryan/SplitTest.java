package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.chord.Id;

/**
 * Two peers that heard nothing from each other for long enough each carry on alone; once they
 * hear each other again they must form one ring again, or each keeps its own bindings for ever.
 * Each reports the share of the ring it serves: all of it alone, its part of the two afterwards.
 */
class SplitTest extends RingTest {

    @Test
    void twoPeersThatGaveUpOnEachOtherFormOneRingWhenTheyHearEachOtherAgain() throws Exception {
        // an operation deadline of 500 ms: a peer alone for 1 s takes itself for a ring of one
        ring = Peers.ring(2, Clock.systemUTC(), Map.of("p2psip.bryan.operation-timeout", "500ms"));
        ring.network.cut(true);
        Peers.await(() -> ring.live.stream().allMatch(p -> Peers.neighbours(p).successors().isEmpty()),
                "both peers to carry on alone");
        for (BryanDht alone : ring.live) {
            assertEquals(1000L, alone.metrics().get("bryan.range.permille"), "a peer alone serves the whole ring");
        }
        ring.network.cut(false);
        ring.awaitStable();

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
