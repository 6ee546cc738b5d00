package org.p2psip.lazysip;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One Via value read by hand ({@code SIP/2.0/UDP host[:port];params}), for the fast path. Only the
 * plain form is read: a quote, a comment, an IPv6 literal or an upper-case host name (whose
 * branch seed JAIN-SIP might write differently) makes {@link #parse} return null and the message
 * takes JAIN-SIP's path. Immutable.
 */
public final class ViaValue {

    public final String transport;
    public final String host;
    /** -1 when sent-by has no port. */
    public final int port;
    /** Parameters in order: {name, value or null}. */
    private final List<String[]> params;

    private ViaValue(String transport, String host, int port, List<String[]> params) {
        this.transport = transport;
        this.host = host;
        this.port = port;
        this.params = params;
    }

    public static ViaValue parse(String text) {
        if (text.indexOf('"') >= 0 || text.indexOf('(') >= 0 || text.indexOf('[') >= 0
                || !text.regionMatches(true, 0, "SIP/2.0/", 0, 8)) {
            return null;
        }
        int space = text.indexOf(' ', 8);
        if (space < 0) {
            return null;
        }
        String transport = text.substring(8, space);
        String[] parts = text.substring(space + 1).split(";", -1);
        String sentBy = parts[0].trim();
        int colon = sentBy.indexOf(':');
        String host = colon < 0 ? sentBy : sentBy.substring(0, colon);
        int port = colon < 0 ? -1 : (int) SipLines.number(sentBy.substring(colon + 1), 65535);
        if (!plainHost(host) || (colon >= 0 && port < 0) || transport.isEmpty() || !token(transport)) {
            return null;
        }
        var params = new ArrayList<String[]>(parts.length);
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            String name = (eq < 0 ? p : p.substring(0, eq)).trim();
            if (name.isEmpty() || !token(name)) {
                return null;
            }
            params.add(new String[] {name, eq < 0 ? null : p.substring(eq + 1).trim()});
        }
        return new ViaValue(transport, host, port, params);
    }

    /** A parameter's value: "" if present without one, null if absent. Names are case-insensitive. */
    public String param(String name) {
        for (String[] p : params) {
            if (p[0].equalsIgnoreCase(name)) {
                return p[1] == null ? "" : p[1];
            }
        }
        return null;
    }

    /** sent-by as JAIN-SIP writes it, the seed of the front's branch. */
    public String sentBy() {
        return port < 0 ? host : host + ':' + port;
    }

    /** The value with {@code received} and {@code rport} noted as a server transport notes them (RFC 3261 §18.2.1, RFC 3581). */
    public String stamped(InetSocketAddress source) {
        String ip = source.getAddress().getHostAddress();
        boolean received = !ip.equals(host);
        var text = new StringBuilder(64).append("SIP/2.0/").append(transport).append(' ').append(sentBy());
        for (String[] p : params) {
            text.append(';').append(p[0]);
            if (received && p[0].equalsIgnoreCase("received")) {
                text.append('=').append(ip);
                received = false;
            } else if (p[0].equalsIgnoreCase("rport")) {
                text.append('=').append(source.getPort());
            } else if (p[1] != null) {
                text.append('=').append(p[1]);
            }
        }
        if (received) {
            text.append(";received=").append(ip);
        }
        return text.toString();
    }

    private static boolean plainHost(String host) {
        if (host.isEmpty()) {
            return false;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    private static boolean token(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= ' ' || c >= 127 || ";,=<>\"@:/?".indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }
}
