package org.p2psip.dht.bryan;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.p2psip.config.HostPort;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.VirtualNodes;

/**
 * A peer's URI, {@code sip:PEER-ID@host:port}: the Peer-ID (40 hex digits) as user part and the
 * peer's SIP address. The Peer-ID must be one of the places the address may take
 * ({@link VirtualNodes#isPlaceOf}: SHA-1 of {@code host:port}, or of {@code host:port#i} for i below the
 * overlay's places), so a peer cannot choose its places on the ring.
 */
final class PeerUri {

    /** A host and an explicit port: a name or IPv4 address, or an IPv6 address in brackets. */
    static final String HOST_PORT = "((?:[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5})";
    private static final Pattern URI = Pattern.compile("sip:([0-9a-fA-F]{40})@" + HOST_PORT);

    private PeerUri() {
    }

    static String print(NodeRef peer) {
        return "sip:" + peer.id() + "@" + peer.address();
    }

    /** @param places the places each peer of the overlay takes: the Peer-ID must be one of its address's */
    static NodeRef parse(String header, String text, String uri, int places) {
        Matcher m = URI.matcher(uri);
        if (!m.matches()) {
            throw new MalformedHeaderException(header, text, "the URI is not sip:PEER-ID@host:port");
        }
        String address = checkedPort(header, text, m.group(2));
        Id id = Id.parse(m.group(1).toLowerCase(Locale.ROOT));
        if (!VirtualNodes.isPlaceOf(id, address, places)) {
            throw new MalformedHeaderException(header, text, places == 1 ? "the Peer-ID is not the SHA-1 of " + address
                    : "the Peer-ID is none of the " + places + " places of " + address);
        }
        return new NodeRef(id, address);
    }

    /** {@code address}, a {@link #HOST_PORT} match, when its port is 1..65535. */
    static String checkedPort(String header, String text, String address) {
        int port;
        try {
            port = HostPort.parse(address).port();
        } catch (IllegalArgumentException e) {
            throw new MalformedHeaderException(header, text, e.getMessage());
        }
        if (port < 1) {
            throw new MalformedHeaderException(header, text, "port " + port + " out of range");
        }
        return address;
    }
}
