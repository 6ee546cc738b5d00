package org.p2psip.dht.chord;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.p2psip.dht.Dht;
import org.p2psip.dht.contract.DhtContract;

/**
 * The contract kit on a ring of three in-process nodes: writes through one, reads through another.
 * Subclasses run it on other rings of three ({@link #ring}).
 */
class ChordDhtContractTest extends DhtContract {

    private final List<Ring> rings = new ArrayList<>();

    /** A ring of three nodes, settled, reading time from {@code clock}. */
    Ring ring(Clock clock) {
        return Ring.of(3, clock);
    }

    @Override
    protected Dht createDht(Clock clock) {
        Ring ring = ring(clock);
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
