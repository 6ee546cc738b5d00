package org.p2psip.dht.bryan;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.chord.Id;
import org.p2psip.dht.chord.NodeRef;

/**
 * What a peer answers to a checked peer REGISTER: plain registrations go to the {@link Ring};
 * copies to the {@link Store}; a routed operation (get, put, remove, find) is acted on when this
 * peer is responsible for its key and redirected (302, Contact: the next peer) when not. Runs on
 * the peer's loop.
 */
final class Handlers {

    private Handlers() {
    }

    static CompletableFuture<PeerResponse> handle(BryanPeer peer, Incoming in) {
        if (in.op() == null) {
            return CompletableFuture.completedFuture(peer.ring().registration(in));
        }
        if (in.op().op() == OpHeader.Op.COPY) {
            return CompletableFuture.completedFuture(copy(peer, in));
        }
        if (!peer.joined().isDone() || peer.joined().isCompletedExceptionally()) {
            return answer(peer, 480, "Not on the ring yet");
        }
        Id key = in.op().key();
        Links links = peer.links();
        if (links.responsibleFor(key)) {
            return act(peer, in).thenApply(o -> peer.reply(o.status(), o.reason(), null, o.links(), o.contentType(), o.body()));
        }
        NodeRef next = links.nextHop(key);
        if (next.equals(peer.self()) || next.equals(in.sender().peer())) {
            return answer(peer, 480, "Ring repairing: no closer peer known");
        }
        peer.counters().increment("bryan.redirects");
        return CompletableFuture.completedFuture(peer.reply(302, "Moved Temporarily", next, List.of(), "", new byte[0]));
    }

    /** The operation at the responsible peer, for a remote asker or for this peer itself. */
    static CompletableFuture<Outcome> act(BryanPeer peer, Incoming in) {
        return act(peer, in.op(), in.contentType(), in.body());
    }

    static CompletableFuture<Outcome> act(BryanPeer peer, OpHeader op, String contentType, byte[] body) {
        Store store = peer.store();
        return switch (op.op()) {
            case GET -> CompletableFuture.completedFuture(store.get(op.key()));
            case PUT -> store.put(op, contentType, body);
            case REMOVE -> store.remove(op);
            case FIND -> CompletableFuture.completedFuture(new Outcome(200, "OK", peer.self(),
                    peer.links().headers(peer.linkExpires(), false), "", new byte[0]));
            case COPY -> throw new IllegalArgumentException("copy is not routed");
        };
    }

    private static PeerResponse copy(BryanPeer peer, Incoming in) {
        if (!in.contentType().equals(RecordsBody.TYPE)) {
            return peer.reply(400, "A copy needs a body of " + RecordsBody.TYPE, null, List.of(), "", new byte[0]);
        }
        try {
            peer.store().merge(RecordsBody.decode(in.body()));
        } catch (MalformedBindingException e) {
            return peer.reply(400, "Bad records body: " + e.getMessage(), null, List.of(), "", new byte[0]);
        }
        return peer.reply(200, "OK", null, List.of(), "", new byte[0]);
    }

    private static CompletableFuture<PeerResponse> answer(BryanPeer peer, int status, String reason) {
        return CompletableFuture.completedFuture(peer.reply(status, reason, null, List.of(), "", new byte[0]));
    }
}
