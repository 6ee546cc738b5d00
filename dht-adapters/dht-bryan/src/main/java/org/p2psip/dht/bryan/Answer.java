package org.p2psip.dht.bryan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.NodeRef;

/**
 * A final response to one of this peer's REGISTERs, checked: signed by a peer of the overlay
 * (refusals, 4xx without DHT-PeerID, are taken as they come). Immutable.
 *
 * @param responder the answering peer; null for an unsigned refusal
 * @param contacts  the peers a 302 points to, the one to ask first first; empty otherwise
 * @param view      the responder's view of the overlay (DHT-View); null when it sent none
 */
record Answer(int status, String reason, NodeRef responder, List<NodeRef> contacts, List<LinkHeader> links,
              ViewHeader view, String contentType, byte[] body) {

    Answer {
        contacts = List.copyOf(contacts);
    }

    /** The peer a 302 points to first; null for other answers. */
    NodeRef contact() {
        return contacts.isEmpty() ? null : contacts.get(0);
    }

    /**
     * The peers of a Contact value, {@link PeerUri#print}s joined by ", " as {@link #contactValue}
     * writes them, each optionally in angle brackets.
     */
    static List<NodeRef> contacts(String value, int places) {
        var out = new ArrayList<NodeRef>();
        for (String part : value.split(",")) {
            String uri = part.trim();
            uri = uri.startsWith("<") && uri.endsWith(">") ? uri.substring(1, uri.length() - 1) : uri;
            if (!uri.isEmpty()) {
                out.add(PeerUri.parse("Contact", value, uri, places));
            }
        }
        return out;
    }

    /** The Contact value naming {@code peers} in order. */
    static String contactValue(List<NodeRef> peers) {
        return String.join(", ", peers.stream().map(PeerUri::print).toList());
    }

    /** @param places the places each peer of the overlay takes: every Peer-ID named must be one of its address's */
    static Answer read(PeerResponse response, Signature signature, String requestAuth, int places) {
        boolean refusal = response.status() >= 400 && response.values(PeerIdHeader.NAME).isEmpty();
        if (refusal) {
            return new Answer(response.status(), response.reason(), null, List.of(), List.of(), null, "", new byte[0]);
        }
        if (!signature.verifies(response, requestAuth)) {
            throw new DhtException(Reason.UNREACHABLE, "a " + response.status() + " answer whose DHT-Auth does not verify");
        }
        try {
            List<String> ids = response.values(PeerIdHeader.NAME);
            NodeRef responder = ids.size() == 1 ? PeerIdHeader.parse(ids.get(0), places).peer() : null;
            List<NodeRef> contacts = response.status() / 100 == 3 ? contacts(response.contact(), places) : List.of();
            if (response.status() / 100 == 3 && contacts.isEmpty()) {
                throw new MalformedHeaderException("Contact", response.contact(), "a 302 names no peer");
            }
            var links = new ArrayList<LinkHeader>();
            for (String link : response.values(LinkHeader.NAME)) {
                links.add(LinkHeader.parse(link, places));
            }
            ViewHeader view = ViewHeader.parse(response.values(ViewHeader.NAME), places);
            return new Answer(response.status(), response.reason(), responder, contacts, List.copyOf(links), view,
                    response.contentType(), response.body());
        } catch (MalformedHeaderException e) {
            throw new DhtException(Reason.UNREACHABLE, "an answer with a bad header: " + e.getMessage());
        }
    }

    /** One operation's answer from the body of a batch's 200, which {@code responder} signed. */
    static Answer of(OpsBody.Reply reply, NodeRef responder) {
        return of(reply, responder, 1);
    }

    /** As {@link #of(OpsBody.Reply, NodeRef)}, from an overlay whose peers take {@code places} places. */
    static Answer of(OpsBody.Reply reply, NodeRef responder, int places) {
        List<NodeRef> contacts = List.of();
        if (reply.status() / 100 == 3) {
            try {
                contacts = contacts(reply.contact(), places);
                if (contacts.isEmpty()) {
                    throw new MalformedHeaderException("Contact", reply.contact(), "a 302 names no peer");
                }
            } catch (MalformedHeaderException e) {
                throw new DhtException(Reason.UNREACHABLE, "a batch answer with a bad contact: " + e.getMessage());
            }
        }
        return new Answer(reply.status(), reply.reason(), responder, contacts, List.of(), null, reply.contentType(),
                reply.body());
    }

    List<NodeRef> linked(LinkHeader.Kind kind) {
        return links.stream().filter(l -> l.kind() == kind).sorted(Comparator.comparingInt(LinkHeader::index))
                .map(LinkHeader::peer).toList();
    }
}
