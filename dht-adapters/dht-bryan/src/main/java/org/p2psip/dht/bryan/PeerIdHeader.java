package org.p2psip.dht.bryan;

import java.util.Set;
import org.p2psip.dht.ring.NodeRef;

/**
 * The DHT-PeerID header: who sends a peer message, in which overlay. Immutable.
 * <pre>DHT-PeerID: &lt;sip:PEER-ID@host:port&gt;;algorithm=sha1;dht=Chord1.0;overlay=NAME;expires=SECONDS</pre>
 */
record PeerIdHeader(NodeRef peer, String overlay, long expires) {

    static final String NAME = "DHT-PeerID";
    static final String ALGORITHM = "sha1";
    static final String DHT = "Chord1.0";
    private static final Set<String> PARAMETERS = Set.of("algorithm", "dht", "overlay", "expires");

    String print() {
        return "<" + PeerUri.print(peer) + ">;algorithm=" + ALGORITHM + ";dht=" + DHT + ";overlay=" + overlay
                + ";expires=" + expires;
    }

    /** A header whose Peer-ID is its address's own (a peer of one place). */
    static PeerIdHeader parse(String text) {
        return parse(text, 1);
    }

    /** @param places the places each peer of the overlay takes ({@link PeerUri#parse}) */
    static PeerIdHeader parse(String text, int places) {
        HeaderValue v = HeaderValue.parse(NAME, text, true);
        NodeRef peer = PeerUri.parse(NAME, text, v.head(), places);
        if (!v.required(NAME, text, "algorithm").equalsIgnoreCase(ALGORITHM)) {
            throw new MalformedHeaderException(NAME, text, "only algorithm=" + ALGORITHM + " is implemented");
        }
        if (!v.required(NAME, text, "dht").equalsIgnoreCase(DHT)) {
            throw new MalformedHeaderException(NAME, text, "only dht=" + DHT + " is implemented");
        }
        String overlay = v.required(NAME, text, "overlay");
        long expires = v.number(NAME, text, "expires", 0xFFFF_FFFFL, 0);
        for (String name : v.params().keySet()) {
            if (!PARAMETERS.contains(name)) {
                throw new MalformedHeaderException(NAME, text, "unknown parameter " + name);
            }
        }
        return new PeerIdHeader(peer, overlay, expires);
    }
}
