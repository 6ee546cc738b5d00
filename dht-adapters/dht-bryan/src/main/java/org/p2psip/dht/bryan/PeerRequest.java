package org.p2psip.dht.bryan;

import java.util.List;
import java.util.Objects;

/**
 * A peer REGISTER as a {@link PeerLink} carries it: the SIP parts the overlay reads, as text.
 * The transport makes it a real REGISTER ({@code From} and {@code To} = {@code peerUri}, the
 * Request-URI = the target's {@code sip:host:port}, the {@code headers} as they are, {@code Expires},
 * the body with its Content-Type) and gives the receiver back the same parts. Immutable.
 *
 * @param peerUri     the sender's peer URI, {@code sip:PEER-ID@host:port}
 * @param expires     the Expires header: 0 for a graceful leave, otherwise the registration's lifetime
 * @param headers     the DHT-PeerID, DHT-Link, DHT-Op and DHT-Auth headers, in order
 * @param contentType the body's type; "" without a body
 * @param body        the body; empty for none
 */
public record PeerRequest(String peerUri, int expires, List<PeerHeader> headers, String contentType, byte[] body) {

    public PeerRequest {
        Objects.requireNonNull(peerUri, "peerUri");
        Objects.requireNonNull(contentType, "contentType");
        headers = List.copyOf(headers);
        body = body == null ? new byte[0] : body;
    }

    /**
     * The values of every header called {@code name} (case-insensitive), in order; a header whose
     * values a SIP stack joined with commas counts as its parts (RFC 3261 §7.3.1).
     */
    /** As {@link PeerRequest#values}. */
    public List<String> values(String name) {
        return headers.stream().filter(h -> h.name().equalsIgnoreCase(name)).flatMap(PeerHeader::parts).toList();
    }
}
