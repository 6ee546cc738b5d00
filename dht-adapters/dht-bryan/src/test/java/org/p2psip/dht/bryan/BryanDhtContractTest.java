package org.p2psip.dht.bryan;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.p2psip.dht.Dht;
import org.p2psip.dht.contract.DhtContract;

/**
 * The contract kit on a ring of three peers whose REGISTERs travel as SIP text (JAIN-SIP prints
 * and parses each one): writes through one peer, reads through another.
 */
class BryanDhtContractTest extends DhtContract {

    private final List<Peers> rings = new ArrayList<>();

    @Override
    protected Dht createDht(Clock clock) {
        return remember(Peers.ring(3, clock));
    }

    /** Keeps {@code ring} for {@link #anotherNode} and closing; its first peer is the kit's node. */
    Dht remember(Peers ring) {
        rings.add(ring);
        return ring.live.get(0);
    }

    @Override
    protected Dht anotherNode(Dht first) {
        Peers ring = rings.get(rings.size() - 1);
        return ring.live.get(ring.live.indexOf(first) == 1 ? 2 : 1);
    }

    @AfterEach
    void closeRings() {
        rings.forEach(Peers::close);
        rings.clear();
    }
}
