package org.p2psip.dht.hazelcast;

/**
 * A {@code host:port} as the node options write addresses ({@code [v6]:port} for IPv6). Immutable.
 *
 * @param host the host, without brackets
 * @param port 0..65535; 0 lets the system pick a free port (tests)
 */
record HostPort(String host, int port) {

    HostPort {
        if (host.isEmpty() || port < 0 || port > 65535) {
            throw new IllegalArgumentException("not a host:port: " + host + ":" + port);
        }
    }

    static HostPort parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("p2psip.overlay.address must be host:port, got '" + text + "'");
        }
        String host = text.substring(0, colon).trim();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return new HostPort(host, Integer.parseInt(text.substring(colon + 1).trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("p2psip.overlay.address must be host:port, got '" + text + "'", e);
        }
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
