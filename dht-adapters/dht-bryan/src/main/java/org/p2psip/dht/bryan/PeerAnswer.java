package org.p2psip.dht.bryan;

import java.util.List;
import org.p2psip.dht.ring.NodeRef;

/**
 * The result of a routed peer REGISTER at the peer that acted on it (this one or a remote one):
 * the status it answered, who answered, its links and its body. Immutable.
 */
record PeerAnswer(int status, String reason, NodeRef responder, List<LinkHeader> links, String contentType, byte[] body) {

    static PeerAnswer of(int status, String reason, NodeRef responder) {
        return new PeerAnswer(status, reason, responder, List.of(), "", new byte[0]);
    }

    static PeerAnswer of(Answer answer) {
        return new PeerAnswer(answer.status(), answer.reason(), answer.responder(), answer.links(), answer.contentType(),
                answer.body());
    }

    List<NodeRef> linked(LinkHeader.Kind kind) {
        return links.stream().filter(l -> l.kind() == kind)
                .sorted(java.util.Comparator.comparingInt(LinkHeader::index)).map(LinkHeader::peer).toList();
    }
}
