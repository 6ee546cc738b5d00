package org.p2psip.overlay;

import java.net.InetSocketAddress;

/** Overlay addresses are "host:port" text; this turns them into socket addresses. */
public final class Addresses {

    private Addresses() {
    }

    /** Parses "host:port" (IPv6 hosts in brackets) without resolving names on the caller's thread twice. */
    public static InetSocketAddress parse(String address) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("overlay address must be host:port, got '" + address + "'");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = Integer.parseInt(address.substring(colon + 1));
        return new InetSocketAddress(host, port);
    }

    /** "host:port" of a bound socket address, as this node names itself. */
    public static String format(InetSocketAddress socket) {
        String host = socket.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + socket.getPort();
    }
}
