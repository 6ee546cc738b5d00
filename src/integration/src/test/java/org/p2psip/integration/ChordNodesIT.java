package org.p2psip.integration;

/**
 * {@link SharedBindingsIT} on a Chord ring of four nodes (SIP 25100-25103) whose overlay runs over
 * mutual TLS (deploy/p2psip up --overlay-tls): joins, replicas and the repair after the kill all
 * cross TLS connections between certificates of the deployment's CA.
 */
class ChordNodesIT extends SharedBindingsIT {

    ChordNodesIT() {
        super("chord", 25100, 4_000, 400);
        deployment.withOverlayTls();
    }
}
