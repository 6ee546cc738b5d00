package org.p2psip.dht.bryan;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.Members;
import org.p2psip.dht.ring.Members.Member;

/**
 * The DHT-View header: the sending peer's view of every peer of a small overlay (dht-ring's
 * {@link Members}), or word that it keeps none, the overlay being larger than max-nodes. A member's
 * place 0 is at the SHA-1 of its address, as every peer's is, so the header does not carry it.
 * Immutable.
 * <pre>DHT-View: large
 * DHT-View: &lt;sip:host:port&gt;;places=N;beat=N, &lt;sip:host:port&gt;;places=N;beat=N, ...</pre>
 *
 * @param members empty when {@code large}
 */
record ViewHeader(boolean large, List<Member> members) {

    static final String NAME = "DHT-View";
    private static final String LARGE = "large";
    private static final Pattern URI = Pattern.compile("sip:" + PeerUri.HOST_PORT);

    ViewHeader {
        members = List.copyOf(members);
    }

    PeerHeader header() {
        if (large) {
            return new PeerHeader(NAME, LARGE);
        }
        var values = members.stream().map(m -> "<sip:" + m.address() + ">;places=" + m.places() + ";beat=" + m.heartbeat());
        return new PeerHeader(NAME, String.join(", ", values.toList()));
    }

    /**
     * The view the values of a message's DHT-View headers say; null when it has none.
     *
     * @param places the places each peer of the overlay takes: a member owning more is malformed
     */
    static ViewHeader parse(List<String> values, int places) {
        if (values.isEmpty()) {
            return null;
        }
        if (values.stream().anyMatch(v -> v.equalsIgnoreCase(LARGE))) {
            if (values.size() > 1) {
                throw new MalformedHeaderException(NAME, String.join(", ", values), "large stands alone");
            }
            return new ViewHeader(true, List.of());
        }
        var members = new ArrayList<Member>(values.size());
        for (String text : values) {
            members.add(member(text, places));
        }
        return new ViewHeader(false, members);
    }

    private static Member member(String text, int places) {
        HeaderValue v = HeaderValue.parse(NAME, text, true);
        Matcher m = URI.matcher(v.head());
        if (!m.matches()) {
            throw new MalformedHeaderException(NAME, text, "the URI is not sip:host:port");
        }
        String address = PeerUri.checkedPort(NAME, text, m.group(1));
        if (!v.params().keySet().equals(Set.of("places", "beat"))) {
            throw new MalformedHeaderException(NAME, text, "a member takes places= and beat=, and nothing else");
        }
        int owning = (int) v.number(NAME, text, "places", places, 0);
        long beat = v.number(NAME, text, "beat", Long.MAX_VALUE, 0);
        return new Member(address, owning, Id.hash(address), beat);
    }
}
