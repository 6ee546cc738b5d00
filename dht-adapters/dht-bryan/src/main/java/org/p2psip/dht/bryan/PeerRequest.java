package org.p2psip.dht.bryan;

import java.util.List;
import java.util.Objects;

/**
 * A peer REGISTER as a {@link PeerLink} carries it: the SIP parts the overlay reads, as text.
 * The transport makes it a real REGISTER ({@code From} and {@code To} = {@code peerUri}, the
 * Request-URI = the target's {@code sip:host:port} with {@code ;peer-id=}{@code target} when a
 * target place is named, the {@code headers} as they are, {@code Expires}, the body with its
 * Content-Type) and gives the receiver back the same parts. Immutable.
 *
 * @param peerUri     the sender's peer URI, {@code sip:PEER-ID@host:port}
 * @param expires     the Expires header: 0 for a graceful leave, otherwise the registration's lifetime
 * @param headers     the DHT-PeerID, DHT-Link, DHT-Op and DHT-Auth headers, in order
 * @param contentType the body's type; "" without a body
 * @param body        the body; empty for none
 * @param target      the Peer-ID of the place the request is for (40 hex digits), the Request-URI's
 *                    {@code peer-id} parameter: a peer takes several places on the ring, on one
 *                    address; "" for none (the peer's first place)
 */
public record PeerRequest(String peerUri, int expires, List<PeerHeader> headers, String contentType, byte[] body,
                          String target) {

    /** The Request-URI parameter that names the target place. */
    public static final String TARGET_PARAMETER = "peer-id";

    public PeerRequest {
        Objects.requireNonNull(peerUri, "peerUri");
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(target, "target");
        headers = List.copyOf(headers);
        body = body == null ? new byte[0] : body;
    }

    /** A request naming no target place: the receiver's first place answers it. */
    public PeerRequest(String peerUri, int expires, List<PeerHeader> headers, String contentType, byte[] body) {
        this(peerUri, expires, headers, contentType, body, "");
    }

    /** The same request for the place {@code peerId}. */
    public PeerRequest toPlace(String peerId) {
        return new PeerRequest(peerUri, expires, headers, contentType, body, peerId);
    }

    /** The same request with {@code more} headers after its own. */
    PeerRequest with(PeerHeader more) {
        var all = new java.util.ArrayList<>(headers);
        all.add(more);
        return new PeerRequest(peerUri, expires, all, contentType, body, target);
    }

    /**
     * The values of every header called {@code name} (case-insensitive), in order; a header whose
     * values a SIP stack joined with commas counts as its parts (RFC 3261 §7.3.1).
     */
    public List<String> values(String name) {
        return headers.stream().filter(h -> h.name().equalsIgnoreCase(name)).flatMap(PeerHeader::parts).toList();
    }
}
