package org.p2psip.dht.chord;

import java.time.Clock;

/**
 * The contract kit on a ring of three in-process nodes whose views of the ring are whole before
 * the kit starts: every operation goes in one hop to its owner.
 */
class ChordDhtOneHopContractTest extends ChordDhtContractTest {

    @Override
    Ring ring(Clock clock) {
        var ring = new Ring(clock, false).with(ChordOptions.STABILIZE_IDLE_INTERVAL.name(), "250ms");
        for (int i = 0; i < 3; i++) {
            ring.add();
        }
        ring.awaitSettled();
        ring.awaitViews();
        return ring;
    }
}
