package org.p2psip.dht.bryan;

import java.util.List;
import java.util.Objects;

/**
 * The final answer to a peer REGISTER as a {@link PeerLink} carries it. Immutable.
 *
 * @param status      the SIP status code (200, 302, 400, 403, 412, 480, ...)
 * @param reason      the reason phrase; for refusals it says what was wrong
 * @param contact     for a 302, the peer URIs {@code sip:PEER-ID@host:port} to ask next, in order, joined by
 *                    ", " (the first to ask; the others in case it does not answer); else ""
 * @param headers     DHT-PeerID of the answering peer, DHT-Link, DHT-Auth
 * @param contentType the body's type; "" without a body
 * @param body        the body; empty for none
 */
public record PeerResponse(int status, String reason, String contact, List<PeerHeader> headers, String contentType,
                           byte[] body) {

    public PeerResponse {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(contact, "contact");
        Objects.requireNonNull(contentType, "contentType");
        headers = List.copyOf(headers);
        body = body == null ? new byte[0] : body;
    }

    /** A refusal without DHT headers: the sender is not (or not provably) a peer of this overlay. */
    public static PeerResponse refusal(int status, String reason) {
        return new PeerResponse(status, reason, "", List.of(), "", new byte[0]);
    }

    /** The same response with {@code header} in place of any header of its name. */
    PeerResponse replacing(PeerHeader header) {
        var all = new java.util.ArrayList<PeerHeader>(headers.size() + 1);
        headers.stream().filter(h -> !h.name().equalsIgnoreCase(header.name())).forEach(all::add);
        all.add(header);
        return new PeerResponse(status, reason, contact, all, contentType, body);
    }

    /** As {@link PeerRequest#values}. */
    public List<String> values(String name) {
        return headers.stream().filter(h -> h.name().equalsIgnoreCase(name)).flatMap(PeerHeader::parts).toList();
    }
}
