package org.p2psip.dht.bryan;

import java.util.ArrayList;
import java.util.List;
import org.p2psip.dht.ring.NodeRef;

/**
 * A received peer REGISTER, checked: its headers parsed, its DHT-Auth verified, its overlay this
 * one. Anything else is a {@link Refusal} and changes nothing. Whether it is fresh and new is the
 * {@link ReplayGuard}'s to say, after these checks. Immutable.
 *
 * @param op    null for the draft's plain peer registrations (join, refresh, leave)
 * @param stamp when and in which life of its sender the request was sent
 * @param view  the sender's view of the overlay (DHT-View); null when it sent none
 */
record Incoming(PeerIdHeader sender, List<LinkHeader> links, OpHeader op, StampHeader stamp, ViewHeader view,
                int expires, String contentType, byte[] body, String auth) {

    /** @param places the places each peer of the overlay takes: every Peer-ID named must be one of its address's */
    static Incoming read(PeerRequest request, Signature signature, String overlay, int places) throws Refusal {
        PeerIdHeader sender;
        var links = new ArrayList<LinkHeader>();
        OpHeader op = null;
        StampHeader stamp;
        ViewHeader view;
        try {
            List<String> ids = request.values(PeerIdHeader.NAME);
            if (ids.size() != 1) {
                throw new Refusal(400, "Exactly one DHT-PeerID expected, got " + ids.size());
            }
            sender = PeerIdHeader.parse(ids.get(0), places);
            for (String link : request.values(LinkHeader.NAME)) {
                links.add(LinkHeader.parse(link, places));
            }
            List<String> ops = request.values(OpHeader.NAME);
            if (ops.size() > 1) {
                throw new Refusal(400, "At most one DHT-Op expected, got " + ops.size());
            }
            if (!ops.isEmpty()) {
                op = OpHeader.parse(ops.get(0));
            }
            List<String> stamps = request.values(StampHeader.NAME);
            if (stamps.size() != 1) {
                throw new Refusal(400, "Exactly one DHT-Stamp expected, got " + stamps.size());
            }
            stamp = StampHeader.parse(stamps.get(0));
            view = ViewHeader.parse(request.values(ViewHeader.NAME), places);
        } catch (MalformedHeaderException e) {
            throw new Refusal(400, "Bad DHT header: " + e.getMessage());
        }
        if (!request.peerUri().equals(PeerUri.print(sender.peer()))) {
            throw new Refusal(400, "Bad DHT header: To/From " + request.peerUri() + " is not the DHT-PeerID's URI");
        }
        if (!signature.verifies(request)) {
            throw new Refusal(403, "DHT-Auth missing or wrong: not a peer of this overlay");
        }
        if (!sender.overlay().equals(overlay)) {
            throw new Refusal(403, "Other overlay: " + sender.overlay() + ", this is " + overlay);
        }
        if (request.expires() < 0) {
            throw new Refusal(400, "A peer REGISTER needs an Expires header");
        }
        return new Incoming(sender, List.copyOf(links), op, stamp, view, request.expires(), request.contentType(), request.body(),
                Signature.authOf(request));
    }

    /** The link of the given kind naming {@code peer}, if the sender gave one. */
    boolean names(org.p2psip.dht.ring.NodeRef peer, LinkHeader.Kind kind, int index) {
        return links.stream().anyMatch(l -> l.peer().equals(peer) && l.kind() == kind && l.index() == index);
    }

    /** The sender's links of one kind, in order of their index. */
    List<org.p2psip.dht.ring.NodeRef> linked(LinkHeader.Kind kind) {
        return links.stream().filter(l -> l.kind() == kind)
                .sorted(java.util.Comparator.comparingInt(LinkHeader::index)).map(LinkHeader::peer).toList();
    }
}
