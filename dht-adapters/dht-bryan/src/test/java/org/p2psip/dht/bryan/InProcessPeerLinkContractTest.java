package org.p2psip.dht.bryan;

import org.junit.jupiter.api.AfterEach;
import org.p2psip.dht.DhtException.Reason;

/** The peer-link contract on the links of the in-process network the other tests' peers use. */
class InProcessPeerLinkContractTest extends PeerLinkContract {

    private final InProcessPeerNetwork network = new InProcessPeerNetwork();
    private int next;

    @Override
    protected PeerLink link() {
        return network.link("127.0.0.1:" + (25300 + next++));
    }

    /** The network carries REGISTERs as UDP would: one to an address nobody serves is lost, and the deadline ends it. */
    @Override
    protected Reason nobodyThere() {
        return Reason.TIMEOUT;
    }

    @AfterEach
    void closeNetwork() {
        network.close();
    }
}
