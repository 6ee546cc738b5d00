package org.p2psip.dht.bryan;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.store.Batches;
import org.p2psip.dht.ring.store.Record;
import org.p2psip.dht.ring.store.Store;
import org.p2psip.dht.ring.store.Write;

/**
 * What a peer answers to a checked peer REGISTER: plain registrations go to the {@link Ring};
 * copies to the {@link Store}; a routed operation (get, put, remove, find) is acted on when this
 * peer is responsible for its key and redirected (302, Contact: the next peer) when not; a batch
 * of them is answered operation by operation. Runs on the peer's loop.
 */
final class Handlers {

    private Handlers() {
    }

    static CompletableFuture<PeerResponse> handle(BryanPeer peer, Incoming in) {
        if (in.op() == null) {
            return CompletableFuture.completedFuture(peer.ring().registration(in));
        }
        return switch (in.op().op()) {
            case COPY -> CompletableFuture.completedFuture(copy(peer, in));
            case BATCH -> batch(peer, in);
            case HANDED -> {
                peer.membership().handed(in.sender().peer().address());
                yield answer(peer, 200, "OK");
            }
            default -> routed(peer, in.sender().peer(), in.op(), in.contentType(), in.body());
        };
    }

    /**
     * One routed operation: acted on here when this peer is responsible for its key, else
     * redirected. A user's operation is redirected first to the owner this peer's view names, and
     * the 302 carries the entries of that owner and of this peer (DHT-View), which correct the
     * asker's view when it sent the operation here by a stale one.
     */
    private static CompletableFuture<PeerResponse> routed(BryanPeer peer, NodeRef sender, OpHeader op, String contentType,
                                                          byte[] body) {
        if (!peer.joined().isDone() || peer.joined().isCompletedExceptionally()) {
            return answer(peer, 480, "Not on the ring yet");
        }
        Links links = peer.links();
        if (links.table().owns(op.key())) {
            return act(peer, op, contentType, body, sender)
                    .thenApply(o -> peer.reply(o.status(), o.reason(), null, o.links(), o.contentType(), o.body()));
        }
        if (answersAround(links, peer.store(), op)) {
            peer.counters().increment("bryan.gets.around");
            return act(peer, op, contentType, body, sender)
                    .thenApply(o -> peer.reply(o.status(), o.reason(), null, o.links(), o.contentType(), o.body()));
        }
        boolean user = op.op().batched();
        List<NodeRef> next = user ? ownerFirst(peer, sender, op.key(), links.nextHops(op.key())) : links.nextHops(op.key());
        if (next.isEmpty() || next.get(0).equals(sender)) {
            return answer(peer, 480, "Ring repairing: no closer peer known");
        }
        peer.counters().increment("bryan.redirects");
        return CompletableFuture.completedFuture(withView(peer.redirect(next), user ? peer.viewOwning(List.of(op.key())) : null));
    }

    /**
     * The owner of {@code key} this peer's view names, then {@code next}: at most {@link
     * Links#ALTERNATIVES}. Not when the view names this place or the asker's peer: the asker sent
     * the operation because none of its places owns the key, so a view naming it is stale (a
     * member's places gossiped before they owned their ranges), and this peer's links, which may
     * well know the owner (its successor), decide instead of an answer that the ring is repairing.
     */
    private static List<NodeRef> ownerFirst(BryanPeer peer, NodeRef asker, Id key, List<NodeRef> next) {
        NodeRef owner = peer.view().owner(key);
        if (owner == null || owner.equals(peer.self()) || owner.address().equals(asker.address())) {
            return next;
        }
        var out = new ArrayList<NodeRef>(Links.ALTERNATIVES);
        out.add(owner);
        next.stream().filter(n -> !n.equals(owner)).limit(Links.ALTERNATIVES - 1L).forEach(out::add);
        return out;
    }

    private static PeerResponse withView(PeerResponse response, ViewHeader view) {
        return view == null ? response : response.replacing(view.header());
    }

    /**
     * Whether this peer answers a get for its predecessor: the asker found the predecessor silent
     * (it names it), and this peer, its first successor, holds a copy of the record. A write is
     * acknowledged only once its replicas took it, so the copy is as new as anything acknowledged;
     * without one (a successor that just joined) the get goes on as routed, until the ring has
     * repaired. Without this a get for a dead peer's keys failed until its successor noticed the
     * death (three missed probes), while the copies sat one hop away.
     */
    private static boolean answersAround(Links links, Store store, OpHeader op) {
        NodeRef predecessor = links.table().predecessor();
        return op.around() != null && predecessor != null && predecessor.id().equals(op.around())
                && store.record(op.key()) != null;
    }

    /**
     * Several routed operations in one REGISTER: each is answered as if it had come alone, in one
     * 200 whose body lists the answers in order. A batch with one bad operation is refused whole,
     * before any of them is acted on.
     */
    private static CompletableFuture<PeerResponse> batch(BryanPeer peer, Incoming in) {
        List<OpsBody.Op> ops;
        try {
            if (!in.contentType().equals(OpsBody.OPS_TYPE)) {
                throw new IllegalArgumentException("a batch needs a body of " + OpsBody.OPS_TYPE);
            }
            ops = OpsBody.decodeOps(in.body());
        } catch (IllegalArgumentException e) { // MalformedHeaderException too
            return answer(peer, 400, "Bad batch: " + e.getMessage());
        }
        peer.counters().increment("bryan.batches.in");
        var each = ops.stream().map(op -> routed(peer, in.sender().peer(), op.op(), op.contentType(), op.body())).toList();
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new)).thenApply(all -> {
            var replies = each.stream().map(CompletableFuture::join).map(r ->
                    new OpsBody.Reply(r.status(), r.reason(), r.contact(), r.contentType(), r.body())).toList();
            var redirected = new ArrayList<Id>();
            for (int i = 0; i < ops.size(); i++) {
                if (replies.get(i).status() == 302) {
                    redirected.add(ops.get(i).op().key());
                }
            }
            PeerResponse answers = peer.reply(200, "OK", null, List.of(), OpsBody.ANSWERS_TYPE, OpsBody.encodeReplies(replies));
            return withView(answers, redirected.isEmpty() ? null : peer.viewOwning(redirected));
        });
    }

    /** Acts on a routed operation this peer is responsible for; {@code asker} sent it (this peer for its own). */
    static CompletableFuture<PeerAnswer> act(BryanPeer peer, OpHeader op, String contentType, byte[] body, NodeRef asker) {
        Store store = peer.store();
        return switch (op.op()) {
            case GET -> CompletableFuture.completedFuture(withRecord(peer, 200, "OK", store.read(op.key(), "")));
            case PUT -> put(peer, op, contentType, body, asker);
            case REMOVE -> store.remove(op.key(), "", op.version(), asker).thenApply(w -> written(peer, w, op.op()));
            case UPDATE -> update(peer, op, contentType, body, asker);
            case FIND -> CompletableFuture.completedFuture(new PeerAnswer(200, "OK", peer.self(),
                    peer.links().headers(peer.linkExpires(), false), "", new byte[0]));
            case COPY, BATCH, HANDED -> throw new IllegalArgumentException(op.op() + " is not routed");
        };
    }

    /** @param asker the peer whose routed put this is (this peer for its own) */
    private static CompletableFuture<PeerAnswer> put(BryanPeer peer, OpHeader op, String contentType, byte[] body,
                                                  NodeRef asker) {
        BindingSet next;
        try {
            if (!contentType.equals(RecordsBody.SET_TYPE)) {
                return done(peer, 400, "A put needs a body of " + RecordsBody.SET_TYPE);
            }
            next = BindingCodec.decode(body);
        } catch (MalformedBindingException e) {
            return done(peer, 400, "Bad bindings body: " + e.getMessage());
        }
        if (!Id.hash(next.aor()).equals(op.key()) || next.version() != op.version()) {
            return done(peer, 400, "The body's AOR or version differs from DHT-Op");
        }
        return peer.store().put(next, asker).thenApply(w -> written(peer, w, op.op()));
    }

    /** @param asker the peer whose routed update this is (this peer for its own) */
    private static CompletableFuture<PeerAnswer> update(BryanPeer peer, OpHeader op, String contentType, byte[] body,
                                                     NodeRef asker) {
        if (!contentType.equals(RecordsBody.CHANGE_TYPE) || body.length < 2) {
            return done(peer, 400, "An update needs a body of " + RecordsBody.CHANGE_TYPE);
        }
        int length = ((body[0] & 0xFF) << 8) | (body[1] & 0xFF);
        if (body.length < 2 + length) {
            return done(peer, 400, "Bad change body: the AOR is cut short");
        }
        String aor = new String(body, 2, length, java.nio.charset.StandardCharsets.UTF_8);
        if (!Id.hash(aor).equals(op.key())) {
            return done(peer, 400, "The change's AOR differs from DHT-Op");
        }
        byte[] change = java.util.Arrays.copyOfRange(body, 2 + length, body.length);
        return peer.store().update(aor, change, asker).thenApply(w -> written(peer, w, op.op()));
    }

    /**
     * A write's answer. A refused put's 412 carries the record as a get reads it, so that the writer
     * can apply its change again at once. A write some replica did not take is answered 503 and not
     * acknowledged, though it stays stored here. When the asker is a replica its copy travels in
     * the 200 (a records body, which the asker keeps before it acknowledges the write) instead of
     * in a copy REGISTER of its own: with two peers, half of all copies. An answer lost on the way
     * fails the write at the asker, which then acknowledged nothing. An update's 200 or 412 wraps
     * its body with the rules' answer for the change's maker ({@link RecordsBody#UPDATED_TYPE}).
     */
    private static PeerAnswer written(BryanPeer peer, Write write, OpHeader.Op op) {
        PeerAnswer outcome = outcome(peer, write, op);
        if (op != OpHeader.Op.UPDATE || !(write.outcome() == Write.Outcome.STORED || write.outcome() == Write.Outcome.UNCHANGED)) {
            return outcome;
        }
        return new PeerAnswer(outcome.status(), outcome.reason(), outcome.responder(), outcome.links(), RecordsBody.UPDATED_TYPE,
                RecordsBody.updated(write.answer(), outcome.contentType(), outcome.body()));
    }

    /** A write's answer but for an update's rules' answer, which {@link #written} wraps it with. */
    private static PeerAnswer outcome(BryanPeer peer, Write write, OpHeader.Op op) {
        boolean put = op == OpHeader.Op.PUT;
        return switch (write.outcome()) {
            case STORED -> write.carried()
                    ? new PeerAnswer(200, "OK", peer.self(), List.of(), RecordsBody.TYPE,
                            RecordsBody.encode(List.of(write.record()), Integer.MAX_VALUE).get(0))
                    : op == OpHeader.Op.UPDATE ? withRecord(peer, 200, "OK", write.record().set())
                    : PeerAnswer.of(200, "OK", peer.self());
            case UNREPLICATED -> PeerAnswer.of(503, "Replica Did Not Take The Copy", peer.self());
            case CONFLICT -> put ? withRecord(peer, 412, "Conditional Request Failed", write.current())
                    : PeerAnswer.of(412, "Conditional Request Failed", peer.self());
            case UNCHANGED -> withRecord(peer, 412, "Nothing To Change", write.current());
            case MALFORMED -> PeerAnswer.of(400, "Bad change", peer.self());
            case NOT_OWNER -> PeerAnswer.of(480, "Ring repairing: not responsible", peer.self());
        };
    }

    /** An answer carrying {@code current} as its body, or no body when the AOR has no record. */
    private static PeerAnswer withRecord(BryanPeer peer, int status, String reason, BindingSet current) {
        if (!current.exists()) {
            return PeerAnswer.of(status, reason, peer.self());
        }
        return new PeerAnswer(status, reason, peer.self(), List.of(), RecordsBody.SET_TYPE, BindingCodec.encode(current));
    }

    private static CompletableFuture<PeerAnswer> done(BryanPeer peer, int status, String reason) {
        return CompletableFuture.completedFuture(PeerAnswer.of(status, reason, peer.self()));
    }

    /** Keeps the copy a write's 200 carried to this peer (see {@link #written}); false when the body is unreadable. */
    static boolean keepCarried(BryanPeer peer, Answer answer) {
        if (answer.status() != 200) {
            return true;
        }
        try {
            String type = answer.contentType();
            byte[] body = answer.body();
            if (RecordsBody.UPDATED_TYPE.equals(type)) {
                var updated = RecordsBody.updated(body);
                type = updated.contentType();
                body = updated.body();
            }
            if (RecordsBody.TYPE.equals(type)) {
                peer.store().merge(RecordsBody.decode(body));
            }
            return true;
        } catch (MalformedBindingException e) {
            return false;
        }
    }

    private static PeerResponse copy(BryanPeer peer, Incoming in) {
        if (!in.contentType().equals(RecordsBody.TYPE)) {
            return peer.reply(400, "A copy needs a body of " + RecordsBody.TYPE, null, List.of(), "", new byte[0]);
        }
        List<Record> received;
        try {
            received = RecordsBody.decode(in.body());
        } catch (MalformedBindingException e) {
            return peer.reply(400, "Bad records body: " + e.getMessage(), null, List.of(), "", new byte[0]);
        }
        List<Record> passed = behind(peer, in.sender().peer(), received);
        peer.store().merge(received);
        if (!passed.isEmpty()) {
            peer.counters().add("bryan.copies.passed-back", passed.size());
            var batches = new Batches(passed, peer.ring());
            NodeRef predecessor = peer.links().table().predecessor();
            for (int i = 0; batches.has(i); i++) {
                peer.ring().send(predecessor, batches.get(i));
            }
        }
        return peer.reply(200, "OK", null, List.of(), "", new byte[0]);
    }

    /**
     * The records of a copy that belong to a peer before this one, sent by a peer after it, and
     * newer than what this peer holds: they go on to the predecessor. A peer hands a new
     * predecessor the range between it and the old one, (old, new]; while joins ran concurrently
     * the ring may have held several peers there that the hander never saw (a peer placed by one
     * that believed it owned the newcomer's id), each already serving its own part. Kept only by
     * the new predecessor, as if a replica, the hander's acknowledged writes in those parts were
     * never seen by their owners, which answered "absent" for them for good. Passed back from
     * predecessor to predecessor, each record ends at its owner. A replica copy comes from the
     * owner, before this peer, and is not passed back; nor is a record this peer held already, so
     * that two peers never pass one back and forth.
     */
    private static List<Record> behind(BryanPeer peer, NodeRef sender, List<Record> received) {
        NodeRef predecessor = peer.links().table().predecessor();
        if (predecessor == null || predecessor.equals(sender)) {
            return List.of();
        }
        Id self = peer.self().id();
        Store store = peer.store();
        return received.stream()
                .filter(r -> !r.key().inHalfOpen(predecessor.id(), self) && sender.id().inOpen(self, r.key()))
                .filter(r -> store.record(r.key()) == null || store.record(r.key()).stamp() < r.stamp())
                .toList();
    }

    private static CompletableFuture<PeerResponse> answer(BryanPeer peer, int status, String reason) {
        return CompletableFuture.completedFuture(peer.reply(status, reason, null, List.of(), "", new byte[0]));
    }
}
