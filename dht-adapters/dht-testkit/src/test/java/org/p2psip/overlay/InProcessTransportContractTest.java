package org.p2psip.overlay;

import org.junit.jupiter.api.AfterEach;
import org.p2psip.config.Config;

/** The transport contract on nodes of one in-process network. */
class InProcessTransportContractTest extends TransportContract {

    private final InProcessNetwork network = new InProcessNetwork(2);
    private int next;

    @Override
    protected OverlayTransport transport(Config config) {
        return network.transport("node-" + next++ + ":6070", OverlaySettings.from(config));
    }

    @AfterEach
    void closeNetwork() {
        network.close();
    }
}
