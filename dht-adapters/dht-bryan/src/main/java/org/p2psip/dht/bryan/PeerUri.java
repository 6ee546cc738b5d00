package org.p2psip.dht.bryan;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.p2psip.config.HostPort;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * A peer's URI, {@code sip:PEER-ID@host:port}: the Peer-ID (40 hex digits) as user part and the
 * peer's SIP address. The Peer-ID must be the SHA-1 of {@code host:port}, so a peer cannot choose
 * its place on the ring.
 */
final class PeerUri {

    private static final Pattern URI = Pattern.compile(
            "sip:([0-9a-fA-F]{40})@((?:[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5})");

    private PeerUri() {
    }

    static String print(NodeRef peer) {
        return "sip:" + peer.id() + "@" + peer.address();
    }

    static NodeRef parse(String header, String text, String uri) {
        Matcher m = URI.matcher(uri);
        if (!m.matches()) {
            throw new MalformedHeaderException(header, text, "the URI is not sip:PEER-ID@host:port");
        }
        String address = m.group(2);
        int port;
        try {
            port = HostPort.parse(address).port();
        } catch (IllegalArgumentException e) {
            throw new MalformedHeaderException(header, text, e.getMessage());
        }
        if (port < 1) {
            throw new MalformedHeaderException(header, text, "port " + port + " out of range");
        }
        Id id = Id.parse(m.group(1).toLowerCase(Locale.ROOT));
        if (!id.equals(Id.hash(address))) {
            throw new MalformedHeaderException(header, text, "the Peer-ID is not the SHA-1 of " + address);
        }
        return new NodeRef(id, address);
    }
}
