package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Under load, more than one REGISTER travels to a peer at once, up to the peer window: with a
 * single one in flight, two peers carried at most one batch of operations (and one of copies)
 * per round trip, and fell apart once more came (two peers past 8,000 REGISTER/s). Two
 * peers 20 ms apart each way take a burst of writes through both; every write is acknowledged
 * and held by both (responsible peer and replica). The ring splits unevenly, so the peer owning
 * more keys sends most copies and the other most operations: each kind is checked in the
 * direction that carried the most.
 */
class PeerWindowTest extends RingTest {

    private static final int WRITES = 1500;

    @Test
    void aBurstToOnePeerTravelsInSeveralRegistersAtOnceUpToTheWindow() throws Exception {
        assertBurst(4);
    }

    @Test
    void aWindowOfOneKeepsASingleRegisterInFlight() throws Exception {
        assertBurst(1);
    }

    private void assertBurst(int window) throws Exception {
        ring = Peers.ring(2, Clock.systemUTC(), Map.of("p2psip.bryan.peer-window", String.valueOf(window),
                "p2psip.bryan.request-timeout", "2s"));
        ring.network.delay(Duration.ofMillis(20));
        BryanDht a = ring.live.get(0);
        BryanDht b = ring.live.get(1);
        var writes = new ArrayList<CompletableFuture<Boolean>>();
        for (int i = 0; i < WRITES; i++) {
            BryanDht entry = i % 2 == 0 ? a : b;
            writes.add(entry.put(oneBinding("sip:user" + i + "@example.com", "10.0.0.1")).toCompletableFuture());
        }
        for (int i = 0; i < WRITES; i++) {
            assertTrue(writes.get(i).get(30, TimeUnit.SECONDS), "write " + i + " refused");
            String aor = "sip:user" + i + "@example.com";
            assertTrue(Peers.holds(a, aor) && Peers.holds(b, aor), aor + " not on both peers");
        }
        for (String kind : new String[] {"operations", "copies"}) {
            int most = Math.max(ring.network.mostInFlight(a.self().address(), b.self().address(), kind),
                    ring.network.mostInFlight(b.self().address(), a.self().address(), kind));
            // besides the writes' copies, a full copy of the peer's range (one REGISTER at a time) may travel
            int bound = kind.equals("copies") ? window + 1 : window;
            assertTrue(most <= bound, most + " REGISTERs of " + kind + " in flight at once, over " + bound);
            if (window > 1) {
                assertTrue(most > 1, "the burst never had more than one REGISTER of " + kind + " in flight to a peer");
            }
        }
    }
}
