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
import org.p2psip.dht.ring.FingerTable;
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
    /** The peer the last join REGISTER went to that neither placed nor refused this one; null when none. */
    private NodeRef ownerToBe;

    PeerRing(BryanPeer peer) {
        this.peer = peer;
    }

    private FingerTable table() {
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

    /**
     * A REGISTER naming {@code to} in this peer's links, and no other link: the receiver of a
     * stabilisation or a predecessor probe reads only how it is named (S1 or P); the other four
     * links cost about 7% of Bryan's upkeep bytes (200 peers, 10-minute sessions: 1,425 to 1,324 B/s).
     */
    private PeerRequest naming(NodeRef to) {
        List<LinkHeader> links = peer.links().headers(peer.linkExpires(), false).stream()
                .filter(l -> l.peer().equals(to)).toList();
        return peer.request((int) peer.linkExpires(), links, null, "", new byte[0]);
    }

    private CompletableFuture<Answer> send(NodeRef to, PeerRequest request) {
        return peer.send(to, request, peer.settings().requestTimeout());
    }

    /**
     * A join, as Chord's: a find routed through {@code via} for the point just after this peer's
     * Peer-ID, whose owner is this peer's successor-to-be (just after, so that a peer restarted on
     * its address is not sent to its own old place), then a join REGISTER to that owner alone, which
     * admits it by taking it as its P ({@link #admit}). The REGISTER itself was once routed, and the
     * bootstrap it met first, anywhere on the ring, could not tell it from a fresh peer's
     * stabilisation. When the last attempt's join REGISTER went unanswered, or its owner-to-be
     * did not serve yet, this attempt asks that peer again instead ({@link #admittedBy}).
     */
    @Override
    public CompletableFuture<Placement> join(NodeRef via, Duration within) {
        NodeRef again = ownerToBe;
        ownerToBe = null;
        if (again != null) {
            return admittedBy(again, 0).exceptionally(failure -> Placement.none());
        }
        Id after = peer.self().id().plusPowerOfTwo(0);
        var find = new OpHeader(OpHeader.Op.FIND, after, -1);
        PeerRequest request = peer.request((int) peer.linkExpires(), List.of(), find, "", new byte[0]);
        return RoutedCall.forRing(peer, after, request, null, via, true, within).run()
                .thenCompose(found -> admittedBy(found.responder(), 0))
                .exceptionally(failure -> Placement.none());
    }

    /**
     * The join REGISTER to {@code owner}: its 200 names it and its links, which place this peer. A
     * refusal says where to ask next, within {@code max-hops}: the refuser's P when that lies
     * between this peer and the refuser (a peer admitted there since the find), else the 302's
     * Contact. An owner that did not answer may have admitted this peer all the same (it took it as
     * its P, and the peers before it then stabilise with this peer), and one that does not serve
     * yet is the right owner: the next attempt asks it again, as the restarted P it admits again.
     * Every attempt once began with a new find through the bootstrap place, which the silent owner
     * had meanwhile told of this peer, and which then routed the find to this peer itself.
     */
    private CompletableFuture<Placement> admittedBy(NodeRef owner, int hops) {
        if (owner == null || owner.equals(peer.self()) || hops > peer.settings().maxHops()) {
            return CompletableFuture.completedFuture(Placement.none());
        }
        return send(owner, registration((int) peer.linkExpires(), false)).handle((answer, failure) -> {
            if (failure != null) {
                ownerToBe = owner;
                return CompletableFuture.completedFuture(Placement.none());
            }
            if (answer.status() == 200 && answer.responder() != null && !answer.responder().equals(peer.self())) {
                var successors = new ArrayList<NodeRef>();
                successors.add(answer.responder());
                successors.addAll(answer.linked(LinkHeader.Kind.S));
                return CompletableFuture.completedFuture(
                        new Placement(successors, answer.links().stream().map(LinkHeader::peer).toList()));
            }
            List<NodeRef> before = answer.linked(LinkHeader.Kind.P);
            if (!before.isEmpty() && before.get(0).id().inOpen(peer.self().id(), owner.id())) {
                return admittedBy(before.get(0), hops + 1);
            }
            if (answer.status() / 100 == 3 && answer.contact() != null) {
                return admittedBy(answer.contact(), hops + 1);
            }
            if (answer.status() == 480 && !answer.links().isEmpty()) {
                ownerToBe = owner; // on the ring, not serving yet
            }
            return CompletableFuture.completedFuture(Placement.none());
        }).thenCompose(next -> next);
    }

    /** A find sent to {@code member} itself: a peer on a ring answers it 200 or 302, one not on a ring 480. */
    @Override
    public CompletableFuture<Boolean> onRing(NodeRef member) {
        var find = new OpHeader(OpHeader.Op.FIND, peer.self().id(), -1);
        return send(member, peer.request((int) peer.linkExpires(), List.of(), find, "", new byte[0]))
                .handle((answer, failure) -> failure == null && (answer.status() == 200 || answer.status() / 100 == 3));
    }

    /**
     * Stabilisation: REGISTER with S1 naming this peer's links; S1 takes this peer as its P if it
     * lies closer. A peer still waiting for its records names no links: its REGISTER is a join, which
     * S1 answers by taking it as P and handing it its records, as Chord's successor does on a fresh
     * notify, or by refusing with its links when another peer lies between them.
     */
    @Override
    public CompletableFuture<Neighbours> state(NodeRef successor) {
        PeerRequest request = table().awaitingRecords() ? registration((int) peer.linkExpires(), false) : naming(successor);
        return send(successor, request).thenApply(answer -> {
            List<NodeRef> successors = answer.linked(LinkHeader.Kind.S);
            if (answer.status() != 200 && successors.isEmpty()) {
                return null;
            }
            List<NodeRef> predecessor = answer.linked(LinkHeader.Kind.P);
            return new Neighbours(predecessor.isEmpty() ? null : predecessor.get(0), successors);
        });
    }

    /** Nothing to send: the stabilisation REGISTER ({@link #state}) told the successor already. */
    @Override
    public void notify(NodeRef successor, boolean fresh) {
    }

    /** REGISTER with P: it answers, and learns this peer as a successor candidate. */
    @Override
    public CompletableFuture<?> probe(NodeRef predecessor) {
        return send(predecessor, naming(predecessor));
    }

    /**
     * A find of {@code node}'s own id sent to it: any answer will do. A plain REGISTER would be
     * taken as a join by a peer it names in no link, which without a predecessor admits the asker.
     */
    @Override
    public CompletableFuture<?> ping(NodeRef node) {
        var find = new OpHeader(OpHeader.Op.FIND, node.id(), -1);
        return send(node, peer.request((int) peer.linkExpires(), List.of(), find, "", new byte[0]));
    }

    /** A routed find of {@code key}: the peer responsible for it answers. */
    @Override
    public CompletableFuture<NodeRef> ownerOf(Id key) {
        var op = new OpHeader(OpHeader.Op.FIND, key, -1);
        return RoutedCall.forRing(peer, key, peer.request((int) peer.linkExpires(), List.of(), op, "", new byte[0]),
                () -> Handlers.act(peer, op, "", new byte[0], peer.self()), null, true,
                peer.settings().requestTimeout().multipliedBy(2)).run().thenApply(PeerAnswer::responder);
    }

    /** A find of {@code key} sent first to {@code via}, then wherever its redirects lead: the peer responsible answers. */
    @Override
    public CompletableFuture<NodeRef> ownerOf(Id key, NodeRef via) {
        var op = new OpHeader(OpHeader.Op.FIND, key, -1);
        return RoutedCall.forRing(peer, key, peer.request((int) peer.linkExpires(), List.of(), op, "", new byte[0]),
                null, via, true, peer.settings().requestTimeout().multipliedBy(2)).run().thenApply(PeerAnswer::responder);
    }

    /**
     * One gossip swap of the peer's view (dht-ring's {@code Members}): a find of {@code member}'s
     * first place, sent to it with this peer's view in DHT-View. Its answer carries the member's
     * view, taken as any answer's is ({@link BryanPeer#send}); a swap that fails changes nothing.
     */
    void swap(String member, ViewHeader mine) {
        NodeRef first = new NodeRef(Id.hash(member), member);
        var find = new OpHeader(OpHeader.Op.FIND, first.id(), -1);
        send(first, peer.request((int) peer.linkExpires(), List.of(), find, "", new byte[0]).with(mine.header()));
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
        if (!membership().joined().isDone()) {
            // answering as a member, a place whose join's 200 was lost took a stabilising peer as
            // its P and named no successors: that peer dropped the rest of its list, and every find
            // through it for this place's successor was routed to this place, which never joined
            return peer.reply(480, "Not on the ring yet", null, List.of(), "", new byte[0]);
        }
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
            FingerTable table = table();
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
     * A join, or the stabilisation of a peer still waiting for its records: admitted here when this
     * peer takes the newcomer as its predecessor (it lies between this peer's P and this peer, is
     * this peer's P restarted on its address, or this peer knows no P), which hands it its records
     * ({@link Membership#notified}, fresh). Admitting a newcomer without taking it as P let this
     * peer admit others into the same range, each handed its records and each serving a part of
     * the range while its successor link skipped the others: after 40 peers joined 20 a second, a
     * third of them served keys another served too, for half a minute. Else redirected closer, with
     * this peer's links for a stabilising peer to learn the peer between them. A peer that would
     * send it to itself sends it to the peer after it.
     */
    private PeerResponse admit(NodeRef newcomer) {
        if (!membership().joined().isDone() || membership().isClosing()) {
            return peer.reply(480, "Not on the ring yet", null, List.of(), "", new byte[0]);
        }
        // a peer that has not got its own records yet would hand the newcomer an empty range
        if (!membership().servesOwnRange(newcomer)) {
            return peer.reply(480, "Not serving yet", null, peer.links().headers(peer.linkExpires(), false), "",
                    new byte[0]);
        }
        if (membership().notified(newcomer, true)) {
            peer.counters().increment("bryan.admitted");
            return links200(true);
        }
        NodeRef next = peer.links().nextHop(newcomer.id());
        if (next.equals(newcomer)) {
            next = peer.links().nextHop(newcomer.id().plusPowerOfTwo(0));
        }
        List<LinkHeader> links = peer.links().headers(peer.linkExpires(), false);
        if (next.equals(peer.self()) || next.equals(newcomer)) {
            return peer.reply(480, "Ring repairing: no closer peer known", null, links, "", new byte[0]);
        }
        return peer.reply(302, "Moved Temporarily", next, links, "", new byte[0]);
    }

    private PeerResponse links200(boolean withFingers) {
        return peer.reply(200, "OK", null, peer.links().headers(peer.linkExpires(), withFingers), "", new byte[0]);
    }
}
