package org.p2psip.dht.bryan;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.p2psip.dht.ring.NodeRef;

/**
 * The DHT-Link header: one neighbour of the sending peer, which link it is, and for how long the
 * sender vouches for it. Immutable.
 * <pre>DHT-Link: &lt;sip:PEER-ID@host:port&gt;;link=P|S1..S99|F0..F159;expires=SECONDS</pre>
 *
 * @param index 0 for P; n for Sn (1-based); the finger number i for Fi (finger i starts at id + 2^i)
 */
record LinkHeader(NodeRef peer, Kind kind, int index, long expires) {

    static final String NAME = "DHT-Link";
    private static final Pattern LINK = Pattern.compile("([PpSsFf])([0-9]{0,3})");

    enum Kind { P, S, F }

    LinkHeader {
        boolean valid = switch (kind) {
            case P -> index == 0;
            case S -> index >= 1 && index <= 99;
            case F -> index >= 0 && index < 160;
        };
        if (!valid) {
            throw new IllegalArgumentException("no link " + kind + index);
        }
    }

    String print() {
        return "<" + PeerUri.print(peer) + ">;link=" + kind + (kind == Kind.P ? "" : String.valueOf(index))
                + ";expires=" + expires;
    }

    /** A link whose Peer-ID is its address's own (peers of one place). */
    static LinkHeader parse(String text) {
        return parse(text, 1);
    }

    /** @param places the places each peer of the overlay takes ({@link PeerUri#parse}) */
    static LinkHeader parse(String text, int places) {
        HeaderValue v = HeaderValue.parse(NAME, text, true);
        NodeRef peer = PeerUri.parse(NAME, text, v.head(), places);
        Matcher m = LINK.matcher(v.required(NAME, text, "link"));
        if (!m.matches()) {
            throw new MalformedHeaderException(NAME, text, "link must be P, Sn or Fn");
        }
        Kind kind = Kind.valueOf(m.group(1).toUpperCase(java.util.Locale.ROOT));
        if ((kind == Kind.P) != m.group(2).isEmpty()) {
            throw new MalformedHeaderException(NAME, text, "P takes no number, Sn and Fn need one");
        }
        int index = kind == Kind.P ? 0 : Integer.parseInt(m.group(2));
        if ((kind == Kind.S && (index < 1 || index > 99)) || (kind == Kind.F && index >= 160)) {
            throw new MalformedHeaderException(NAME, text, "link number out of range (S1..S99, F0..F159)");
        }
        long expires = v.number(NAME, text, "expires", 0xFFFF_FFFFL, 0);
        for (String name : v.params().keySet()) {
            if (!name.equals("link") && !name.equals("expires")) {
                throw new MalformedHeaderException(NAME, text, "unknown parameter " + name);
            }
        }
        return new LinkHeader(peer, kind, index, expires);
    }
}
