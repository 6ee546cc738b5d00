package org.p2psip.simulator;

import org.p2psip.dht.Dht;

/**
 * One running node of the simulated overlay.
 *
 * @param crash stops the node without a word to its peers, as a crash would
 */
record Member(String address, Dht dht, Runnable crash) {

    void crashNow() {
        crash.run();
    }
}
