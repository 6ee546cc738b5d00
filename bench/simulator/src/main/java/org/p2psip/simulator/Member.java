package org.p2psip.simulator;

import org.p2psip.dht.Dht;

/** One running node of the simulated overlay. */
interface Member {

    String address();

    Dht dht();

    /** Stops the node without a word to its peers, as a crash would. */
    void crash();
}
