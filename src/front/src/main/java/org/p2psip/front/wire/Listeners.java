package org.p2psip.front.wire;

import java.net.InetSocketAddress;

/**
 * Where the front listens: one IP address, with UDP and TCP on one port and TLS on another (0:
 * none), and the inner UDP address it talks to the nodes from, which its Via names (the listen
 * address itself unless configured apart). A Route may name any of them. Immutable.
 */
public record Listeners(InetSocketAddress sip, int tlsPort, InetSocketAddress inner) {

    /** A front whose inner address is its listen address. */
    public Listeners(InetSocketAddress sip, int tlsPort) {
        this(sip, tlsPort, sip);
    }

    /** The port a SIP URI without one means (RFC 3263 §4.2): 5061 for sips or transport=tls, else 5060. */
    static int defaultPort(boolean secure) {
        return secure ? 5061 : 5060;
    }

    /** Whether a URI's host and port ({@code port} -1 if it has none) name the front itself. */
    public boolean named(String host, int port, boolean secure) {
        int p = port > 0 ? port : defaultPort(secure);
        boolean listen = sip.getAddress().getHostAddress().equals(host)
                && (p == sip.getPort() || (tlsPort != 0 && p == tlsPort));
        return listen || (inner.getAddress().getHostAddress().equals(host) && p == inner.getPort());
    }
}
