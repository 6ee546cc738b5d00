package org.p2psip.overlay;

import org.p2psip.config.Config;

/** The transport contract on TCP loopback sockets. */
class TcpTransportContractTest extends TransportContract {

    @Override
    protected OverlayTransport transport(Config config) {
        return TcpTransport.bind("127.0.0.1:0", OverlaySettings.from(config));
    }
}
