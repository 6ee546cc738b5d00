package org.p2psip.overlay;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;

/**
 * The transport contract on TCP loopback sockets with mutual TLS: every node presents the same
 * certificate of one CA, which is all the handshake asks (no hostname verification).
 */
class TcpTransportTlsContractTest extends TransportContract {

    @TempDir
    static Path dir;
    private static TestCertificates deployment;
    private static Path node;

    @BeforeAll
    static void certificates() {
        deployment = new TestCertificates(dir, "deployment");
        node = deployment.node("node");
    }

    @Override
    protected OverlayTransport transport(Config config) {
        return TcpTransport.bind("127.0.0.1:0", OverlaySettings.from(config.with(OverlayOptions.TLS.name(), "true")
                .with(NodeOptions.TLS_KEY_STORE.name(), node.toString())
                .with(NodeOptions.TLS_TRUST_STORE.name(), deployment.trustStore().toString())
                .with(NodeOptions.TLS_STORE_PASSWORD.name(), TestCertificates.PASSWORD)));
    }
}
