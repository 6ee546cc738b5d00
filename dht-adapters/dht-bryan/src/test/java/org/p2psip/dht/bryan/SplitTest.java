package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two peers that heard nothing from each other for long enough each carry on alone; once they
 * hear each other again they must form one ring again, or each keeps its own bindings for ever.
 */
class SplitTest extends RingTest {

    @Test
    void twoPeersThatGaveUpOnEachOtherFormOneRingWhenTheyHearEachOtherAgain() throws Exception {
        // an operation deadline of 500 ms: a peer alone for 1 s takes itself for a ring of one
        ring = Peers.ring(2, Clock.systemUTC(), Map.of("p2psip.bryan.operation-timeout", "500ms"));
        ring.network.cut(true);
        Peers.await(() -> ring.live.stream().allMatch(p -> Peers.neighbours(p).successors().isEmpty()),
                "both peers to carry on alone");
        ring.network.cut(false);
        ring.awaitStable();

        BryanDht first = ring.live.get(0);
        BryanDht second = ring.live.get(1);
        String aor = "sip:split@example.com";
        first.put(oneBinding(aor, "10.0.0.1")).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(1, second.get(aor).toCompletableFuture().get(10, TimeUnit.SECONDS).bindings().size(),
                "a binding written through one peer is read through the other");
    }
}
