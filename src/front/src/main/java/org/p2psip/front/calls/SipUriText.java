package org.p2psip.front.calls;

import java.net.InetSocketAddress;
import org.p2psip.front.wire.ViaPath;

/**
 * A URI read by hand, as far as the kept path routes by it: whether it is {@code sip:} or
 * {@code sips:}, its user part, its host and port, its transport parameter and whether it has headers. The text
 * is kept as it came, to be written out as a Request-URI. Immutable.
 */
record SipUriText(String text, boolean sip, boolean secure, String user, String host, int port, String transport,
        boolean headers) {

    /** {@code text} read; {@code sip} false for any other scheme or a port that does not read (then nothing else is); {@code user} null when it has none. */
    static SipUriText of(String text) {
        int colon = text.indexOf(':');
        String scheme = colon < 0 ? "" : text.substring(0, colon);
        boolean secure = scheme.equalsIgnoreCase("sips");
        if (!secure && !scheme.equalsIgnoreCase("sip")) {
            return new SipUriText(text, false, false, null, null, -1, null, false);
        }
        String rest = text.substring(colon + 1);
        int at = rest.lastIndexOf('@'); // no '@' may follow the user part: not in a host, a parameter or a header
        String hostPart = rest.substring(at + 1);
        int question = hostPart.indexOf('?');
        boolean headers = question >= 0;
        if (headers) {
            hostPart = hostPart.substring(0, question);
        }
        String[] params = hostPart.split(";", -1);
        String hostPort = params[0];
        int close = hostPort.startsWith("[") ? hostPort.indexOf(']') : -1;
        int portColon = hostPort.indexOf(':', Math.max(close, 0));
        String host = portColon < 0 ? hostPort : hostPort.substring(0, portColon);
        int port = portColon < 0 ? -1 : (int) org.p2psip.lazysip.SipLines.number(hostPort.substring(portColon + 1), 65535);
        if (portColon >= 0 && port < 0) {
            return new SipUriText(text, false, false, null, null, -1, null, false); // a port that does not read: routed by nothing
        }
        String transport = null;
        for (int i = 1; i < params.length; i++) {
            if (params[i].regionMatches(true, 0, "transport=", 0, 10)) {
                transport = params[i].substring(10);
            }
        }
        return new SipUriText(text, true, secure, at < 0 ? null : rest.substring(0, at), host, port, transport, headers);
    }

    /** The UDP address it names by IP, or null: not sip:, another transport, a host name the front would have to resolve. */
    InetSocketAddress udpAddress() {
        if (!sip || secure || transport != null && !"udp".equalsIgnoreCase(transport)) {
            return null;
        }
        return ViaPath.responseAddress(ViaPath.strip(host), port, null, null); // an IP address, 5060 if no port
    }
}
