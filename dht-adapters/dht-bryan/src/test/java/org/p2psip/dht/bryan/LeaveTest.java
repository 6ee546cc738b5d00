package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.BindingSet;

/** A graceful leave (Expires: 0) hands everything on: with no replicas at all, nothing is lost. */
class LeaveTest extends RingTest {

    private static final int AORS = 100;
    @Test
    void aPeerThatLeavesGracefullyLosesNothingEvenWithoutReplicas() throws Exception {
        ring = Peers.ring(4, Clock.systemUTC(), Map.of("p2psip.bryan.replicas", "0"));
        BryanDht writer = ring.live.get(0);
        for (int i = 0; i < AORS; i++) {
            String aor = "sip:leave" + i + "@example.com";
            assertTrue(writer.put(oneBinding(aor, "10.0.0.2")).toCompletableFuture().get(20, TimeUnit.SECONDS));
        }
        BryanDht leaver = ring.live.get(2);
        ring.live.remove(leaver);
        leaver.close();
        ring.awaitStable();
        for (int i = 0; i < AORS; i++) {
            String aor = "sip:leave" + i + "@example.com";
            BindingSet got = writer.get(aor).toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertEquals(1, got.bindings().size(), aor + " was lost when its peer left");
        }
    }
}
