package org.p2psip.dht.chord;

import java.time.Clock;

/** The contract kit on a ring of three nodes talking over real TCP sockets on loopback. */
class ChordDhtOverTcpContractTest extends ChordDhtContractTest {

    @Override
    Ring ring(Clock clock) {
        return Ring.of(3, clock, true);
    }
}
