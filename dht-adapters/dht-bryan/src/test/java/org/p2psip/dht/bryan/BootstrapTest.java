package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;

/** Which SIP address a node joins through, from what deploy/p2psip writes into node.properties. */
class BootstrapTest {

    @Test
    void theOverlayBootstrapIsMovedByTheNodesOwnOverlayOffset() {
        // deploy/p2psip up --base-port 26000 --overlay-offset 500: node 2 of the deployment
        Config node2 = Config.empty().with("p2psip.sip.address", "127.0.0.1:26002")
                .with("p2psip.overlay.address", "127.0.0.1:26502").with("p2psip.overlay.bootstrap", "127.0.0.1:26500");
        assertEquals("127.0.0.1:26000", BryanSettings.bootstrap(node2));
    }

    @Test
    void theDefaultLayoutGivesNodeZerosSipAddress() {
        Config node1 = Config.empty().with("p2psip.sip.address", "10.1.2.11:5071")
                .with("p2psip.overlay.address", "10.1.2.11:6071").with("p2psip.overlay.bootstrap", "10.1.2.10:6070");
        assertEquals("10.1.2.10:5070", BryanSettings.bootstrap(node1));
    }

    @Test
    void anExplicitBootstrapWinsAndNoneStartsAnOverlay() {
        Config explicit = Config.empty().with("p2psip.bryan.bootstrap", "127.0.0.1:26003")
                .with("p2psip.overlay.bootstrap", "127.0.0.1:26500");
        assertEquals("127.0.0.1:26003", BryanSettings.bootstrap(explicit));
        assertEquals("", BryanSettings.bootstrap(Config.empty()));
    }
}
