package org.p2psip.front;

import java.net.InetSocketAddress;

/**
 * Where the front listens: one IP address, with UDP and TCP on one port and TLS on another (0:
 * none). The front's Via names the first; a Route may name either. Immutable.
 */
record Listeners(InetSocketAddress sip, int tlsPort) {

    /** The port a SIP URI without one means (RFC 3263 §4.2): 5061 for sips or transport=tls, else 5060. */
    static int defaultPort(boolean secure) {
        return secure ? 5061 : 5060;
    }

    /** Whether a URI's host and port ({@code port} -1 if it has none) name the front itself. */
    boolean named(String host, int port, boolean secure) {
        int p = port > 0 ? port : defaultPort(secure);
        return sip.getAddress().getHostAddress().equals(host) && (p == sip.getPort() || (tlsPort != 0 && p == tlsPort));
    }
}
