package org.p2psip.dht.bryan;

import java.time.Clock;
import java.util.Map;
import org.p2psip.dht.Dht;

/**
 * The contract kit on a ring of three peers whose views of the overlay are whole before the kit
 * starts: every operation goes in one hop to its owner. Views are swapped once a stabilize-idle
 * interval, here 250 ms: at 1 s a fresh ring's views took about 2 s to become whole, in each of
 * the kit's tests.
 */
class BryanDhtOneHopContractTest extends BryanDhtContractTest {

    @Override
    protected Dht createDht(Clock clock) {
        Peers ring = Peers.ring(3, clock, Map.of(BryanOptions.STABILIZE_IDLE_INTERVAL.name(), "250ms"));
        ring.awaitViews();
        return remember(ring);
    }
}
