package org.p2psip.front;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * A loopback port free a moment ago, for an option where 0 does not mean "pick one" (the TLS port:
 * 0 is no TLS). Another process could take it in between; on a test machine that is rare.
 */
final class FreePort {

    private FreePort() {
    }

    static int onLoopback() throws IOException {
        try (var socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }
}
