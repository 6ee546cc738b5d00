package org.p2psip.dht.chord;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.p2psip.dht.Dht;
import org.p2psip.dht.contract.DhtContract;

/** The contract kit on a ring of three nodes talking over real TCP sockets on loopback. */
class ChordDhtOverTcpContractTest extends DhtContract {

    private final List<Ring> rings = new ArrayList<>();

    @Override
    protected Dht createDht(Clock clock) {
        Ring ring = Ring.of(3, clock, true);
        rings.add(ring);
        return ring.nodes.get(0);
    }

    @Override
    protected Dht anotherNode(Dht first) {
        Ring ring = rings.get(rings.size() - 1);
        return ring.nodes.get(ring.nodes.indexOf(first) == 1 ? 2 : 1);
    }

    @AfterEach
    void closeRings() {
        rings.forEach(Ring::close);
        rings.clear();
    }
}
