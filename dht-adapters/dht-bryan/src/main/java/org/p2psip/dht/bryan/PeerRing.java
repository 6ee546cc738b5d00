package org.p2psip.dht.bryan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.Membership;
import org.p2psip.dht.ring.Neighbours;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.RingMessages;
import org.p2psip.dht.ring.RoutingTable;
import org.p2psip.dht.ring.store.Record;
import org.p2psip.dht.ring.store.RecordLink;

/**
 * The ring core's messages as Bryan's peer REGISTERs: a join is a REGISTER routed to the
 * admitting peer (no DHT-Op), stabilisation and the predecessor check are REGISTERs naming this
 * peer's links, a leave is Expires: 0, copies and hand-overs are {@code DHT-Op: copy}. Also the
 * answers to plain peer REGISTERs. Not thread-safe: runs on the peer's loop.
 */
final class PeerRing implements RingMessages, RecordLink {

    private final BryanPeer peer;

    PeerRing(BryanPeer peer) {
        this.peer = peer;
    }

    private RoutingTable table() {
        return peer.links().table();
    }

    private Membership membership() {
        return peer.membership();
    }

    /** A REGISTER carrying this peer's DHT-PeerID and links, no operation. */
    private PeerRequest registration(int expires, boolean withLinks) {
        return peer.request(expires, withLinks ? peer.links().headers(peer.linkExpires(), false) : List.of(), null, "",
                new byte[0]);
    }

    private CompletableFuture<Answer> send(NodeRef to, PeerRequest request) {
        return peer.send(to, request, peer.settings().requestTimeout());
    }

    /** One routed join REGISTER through {@code via}: the admitting peer's 200 names it and its links. */
    @Override
    public CompletableFuture<Placement> join(NodeRef via, Duration within) {
        return RoutedCall.forRing(peer, peer.self().id(), registration((int) peer.linkExpires(), false), null, via, true,
                within).run().handle((outcome, failure) -> {
                    if (failure != null || outcome.status() != 200 || outcome.responder() == null
                            || outcome.responder().equals(peer.self())) {
                        return Placement.none();
                    }
                    var successors = new ArrayList<NodeRef>();
                    successors.add(outcome.responder());
                    successors.addAll(outcome.linked(LinkHeader.Kind.S));
                    return new Placement(successors, outcome.links().stream().map(LinkHeader::peer).toList());
                });
    }

    /** A find sent to {@code member} itself: a peer on a ring answers it 200 or 302, one not on a ring 480. */
    @Override
    public CompletableFuture<Boolean> onRing(NodeRef member) {
        var find = new OpHeader(OpHeader.Op.FIND, peer.self().id(), -1);
        return send(member, peer.request((int) peer.linkExpires(), List.of(), find, "", new byte[0]))
                .handle((answer, failure) -> failure == null && (answer.status() == 200 || answer.status() / 100 == 3));
    }

    /** Stabilisation: REGISTER with S1 naming this peer's links; S1 takes this peer as its P if it lies closer. */
    @Override
    public CompletableFuture<Neighbours> state(NodeRef successor) {
        return send(successor, registration((int) peer.linkExpires(), true)).thenApply(answer -> {
            if (answer.status() != 200) {
                return null;
            }
            List<NodeRef> predecessor = answer.linked(LinkHeader.Kind.P);
            return new Neighbours(predecessor.isEmpty() ? null : predecessor.get(0), answer.linked(LinkHeader.Kind.S));
        });
    }

    /** Nothing to send: the stabilisation REGISTER ({@link #state}) told the successor already. */
    @Override
    public void notify(NodeRef successor, boolean fresh) {
    }

    /** REGISTER with P: it answers, and learns this peer as a successor candidate. */
    @Override
    public CompletableFuture<?> probe(NodeRef predecessor) {
        return send(predecessor, registration((int) peer.linkExpires(), true));
    }

    /** A routed find of {@code key}: the peer responsible for it answers. */
    @Override
    public CompletableFuture<NodeRef> ownerOf(Id key) {
        var op = new OpHeader(OpHeader.Op.FIND, key, -1);
        return RoutedCall.forRing(peer, key, peer.request((int) peer.linkExpires(), List.of(), op, "", new byte[0]),
                () -> Handlers.act(peer, op, "", new byte[0], peer.self()), null, true,
                peer.settings().requestTimeout().multipliedBy(2)).run().thenApply(Outcome::responder);
    }

    @Override
    public void handed(NodeRef newcomer) {
        var handed = new OpHeader(OpHeader.Op.HANDED, null, -1);
        send(newcomer, peer.request((int) peer.linkExpires(), List.of(), handed, "", new byte[0]));
    }

    /** Expires: 0 to S1 and P, naming this peer's links. */
    @Override
    public CompletableFuture<Void> leaving(NodeRef successor, NodeRef predecessor) {
        PeerRequest goodbye = registration(0, true);
        var told = new ArrayList<CompletableFuture<?>>();
        told.add(send(successor, goodbye).exceptionally(e -> null));
        if (predecessor != null && !predecessor.equals(successor)) {
            told.add(send(predecessor, goodbye).exceptionally(e -> null));
        }
        return CompletableFuture.allOf(told.toArray(CompletableFuture[]::new));
    }

    /** A {@code DHT-Op: copy} body with as many of {@code records} as fit {@code copy-batch-bytes}. */
    @Override
    public Cut cut(List<Record> records) {
        return RecordsBody.cut(records, peer.settings().copyBatchBytes());
    }

    /** One {@code DHT-Op: copy}; a refusal fails it. */
    @Override
    public CompletableFuture<?> send(NodeRef target, byte[] body) {
        PeerRequest request = peer.request((int) peer.linkExpires(), List.of(),
                new OpHeader(OpHeader.Op.COPY, null, -1), RecordsBody.TYPE, body);
        return send(target, request).thenApply(answer -> {
            if (answer.status() != 200) {
                throw new DhtException(Reason.UNREACHABLE, target + " refused a copy: " + answer.status() + " "
                        + answer.reason());
            }
            return answer;
        });
    }

    /** This peer's answer to a plain peer registration: leave, stabilisation, predecessor check or join. */
    PeerResponse registration(Incoming in) {
        NodeRef sender = in.sender().peer();
        if (in.expires() == 0) {
            List<NodeRef> before = in.linked(LinkHeader.Kind.P);
            membership().left(sender, before.isEmpty() ? null : before.get(0), in.linked(LinkHeader.Kind.S));
            return links200(false);
        }
        if (in.names(peer.self(), LinkHeader.Kind.S, 1)) {
            membership().notified(sender, false);
            return links200(false);
        }
        if (in.names(peer.self(), LinkHeader.Kind.P, 0)) {
            RoutingTable table = table();
            if (sender.id().inOpen(peer.self().id(), table.successor().id()) || table.successors().isEmpty()) {
                var list = new ArrayList<NodeRef>();
                list.add(sender);
                list.addAll(table.successors());
                table.successors(list);
            }
            return links200(false);
        }
        return admit(sender);
    }

    /**
     * A join: admitted here when this peer is the newcomer's successor-to-be, else redirected
     * closer. A newcomer that is still this peer's predecessor restarted on its address (same
     * Peer-ID, nothing stored): admitted here too, and a peer that would send it to itself sends it
     * to the peer after it. The admitted newcomer is handed its records ({@link Membership#handIn}).
     */
    private PeerResponse admit(NodeRef newcomer) {
        if (!membership().joined().isDone() || membership().isClosing()) {
            return peer.reply(480, "Not on the ring yet", null, List.of(), "", new byte[0]);
        }
        RoutingTable table = table();
        if (table.owns(newcomer.id()) || newcomer.equals(table.predecessor()) || table.successors().isEmpty()) {
            peer.counters().increment("bryan.admitted");
            PeerResponse admitted = links200(true);
            membership().handIn(newcomer);
            return admitted;
        }
        NodeRef next = peer.links().nextHop(newcomer.id());
        if (next.equals(newcomer)) {
            next = peer.links().nextHop(newcomer.id().plusPowerOfTwo(0));
        }
        if (next.equals(peer.self()) || next.equals(newcomer)) {
            return peer.reply(480, "Ring repairing: no closer peer known", null, List.of(), "", new byte[0]);
        }
        return peer.reply(302, "Moved Temporarily", next, List.of(), "", new byte[0]);
    }

    private PeerResponse links200(boolean withFingers) {
        return peer.reply(200, "OK", null, peer.links().headers(peer.linkExpires(), withFingers), "", new byte[0]);
    }
}
