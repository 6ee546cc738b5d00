package org.p2psip.config;

import java.net.InetSocketAddress;

/**
 * An address as the options write it: {@code host:port}, or {@code [v6]:port} for an IPv6
 * literal (RFC 3986's brackets, so that the port's colon is not taken for one of the address's).
 * The one reader of such text: the SIP and overlay addresses of {@link NodeOptions}, the front's
 * listen address and nodes. Here rather than in dht-api because the front, which has no DHT,
 * reads addresses too. Immutable.
 *
 * @param host a name or an IP literal, without brackets; never resolved here
 * @param port 0..65535; 0 lets the system pick a free port (tests)
 */
public record HostPort(String host, int port) {

    public HostPort {
        if (host.isEmpty()) {
            throw new IllegalArgumentException("an address needs a host");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is out of range (0-65535)");
        }
    }

    /**
     * Reads {@code host:port} or {@code [v6]:port}, spaces around it ignored.
     *
     * @throws IllegalArgumentException naming the text, when the port is missing or is no port,
     *         or an IPv6 literal lacks its brackets
     */
    public static HostPort parse(String text) {
        String s = text.strip();
        String host;
        String port;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            String rest = close < 0 ? "" : s.substring(close + 1);
            if (close < 0 || !rest.isEmpty() && rest.charAt(0) != ':') {
                throw new IllegalArgumentException("'" + text + "' is not [v6]:port");
            }
            host = s.substring(1, close);
            port = rest.isEmpty() ? "" : rest.substring(1);
        } else {
            int colon = s.lastIndexOf(':');
            host = colon < 0 ? s : s.substring(0, colon);
            port = colon < 0 ? "" : s.substring(colon + 1);
            if (host.indexOf(':') >= 0 || host.indexOf(']') >= 0) {
                // "::1:5060": ::1 port 5060, or ::1:5060 with no port? Brackets say which.
                throw new IllegalArgumentException("'" + text + "' is not host:port: an IPv6 address goes in brackets, [v6]:port");
            }
        }
        if (port.isEmpty()) {
            throw new IllegalArgumentException("'" + text + "' has no port: write host:port, or [v6]:port");
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("'" + text + "' has no host: write host:port, or [v6]:port");
        }
        // digits only, as a URI's port: Integer.parseInt would also take "+80"
        if (port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + text + "': '" + port + "' is not a port (0-65535)");
        }
        int number = Integer.parseInt(port);
        if (number > 65535) {
            throw new IllegalArgumentException("'" + text + "': port " + number + " is out of range (0-65535)");
        }
        return new HostPort(host, number);
    }

    /** The address an option holds; an error names the option, as {@link Option#parse} does. */
    public static HostPort from(Config config, Option<String> option) {
        try {
            return parse(config.get(option));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("option " + option.name() + ": " + e.getMessage(), e);
        }
    }

    /** A bound socket's address as this node names itself: its IP, never a name. */
    public static HostPort of(InetSocketAddress socket) {
        return new HostPort(socket.getAddress().getHostAddress(), socket.getPort());
    }

    /** The host as a URI writes it (RFC 3261 §25.1, RFC 3986): an IPv6 literal in brackets. */
    public String uriHost() {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    /** A socket address; a name is resolved now, so it may wait for DNS: not on a request's path. */
    public InetSocketAddress socketAddress() {
        return new InetSocketAddress(host, port);
    }

    /** As the options write it: {@code host:port}, {@code [v6]:port}. */
    @Override
    public String toString() {
        return uriHost() + ":" + port;
    }
}
