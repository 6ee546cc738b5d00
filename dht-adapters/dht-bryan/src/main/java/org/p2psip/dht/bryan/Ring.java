package org.p2psip.dht.bryan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * How a peer takes and keeps its place on the Chord ring with plain peer REGISTERs (no DHT-Op):
 * join through a bootstrap (routed to the admitting peer), stabilisation with the successor,
 * the predecessor check, finger repair, and the graceful leave (Expires: 0). Also the answers to
 * those REGISTERs. Not thread-safe: runs on the peer's loop.
 */
final class Ring {

    private final BryanPeer peer;
    private boolean stabilizing;
    private boolean checking;
    private boolean fixing;
    private int nextFinger;
    private long successorHeardNanos = System.nanoTime();
    /** The last successor this peer gave up on when it found itself alone; null while it has peers. */
    private NodeRef lost;
    private boolean rejoining;
    /** The peer that admitted this one, and when: its HANDED ends this peer's wait for records. */
    private NodeRef admitter;
    private long admittedNanos;
    /** The newcomer this peer is handing records to; null when none. */
    private NodeRef handingTo;
    /** A HANDED that arrived before the admission's 200 it follows (they travel apart). */
    private NodeRef handedEarly;

    Ring(BryanPeer peer) {
        this.peer = peer;
    }

    private Links links() {
        return peer.links();
    }

    /** A REGISTER carrying this peer's DHT-PeerID and links, no operation. */
    private PeerRequest registration(int expires, boolean withLinks) {
        return peer.request(expires, withLinks ? links().headers(peer.linkExpires(), false) : List.of(), null, "",
                new byte[0]);
    }

    /**
     * Joins through the bootstrap (the first of {@code through}), and while it does not admit this
     * peer through the others in turn, one per join-retry interval: the admitting peer's 200 names
     * it and its links. A peer restarted while its bootstrap is down still finds the ring.
     */
    void join(List<NodeRef> through) {
        join(through, 0);
    }

    private void join(List<NodeRef> through, int attempt) {
        askToAdmit(through.get(attempt % through.size())).thenAccept(admitted -> {
            if (!admitted && !peer.isClosing()) {
                peer.counters().increment("bryan.join.retries");
                peer.schedule(() -> join(through, attempt + 1), peer.settings().joinRetry().toMillis());
            }
        });
    }

    /**
     * A peer without a bootstrap (the first of a deployment) asks each of the other members in turn
     * to admit it, once, and joins the first ring that does, fresh like any newcomer: a founder
     * restarted after a crash would otherwise start a ring of its own beside the one that carried
     * on without it, and answer every resource from an empty store. Only when none admits it does
     * it start a ring; it then asks the first member again at every stabilisation while alone, as
     * a peer that lost its last successor does ({@link #rejoin}).
     */
    void found(List<NodeRef> members) {
        tryMember(members, 0);
    }

    private void tryMember(List<NodeRef> members, int i) {
        if (peer.isClosing()) {
            return;
        }
        if (i == members.size()) {
            links().awaitingRecords(false);
            lost = members.get(0);
            peer.joined().complete(null);
            peer.checkPlaced();
            return;
        }
        askToAdmit(members.get(i), peer.settings().requestTimeout().multipliedBy(2)).thenAccept(admitted -> {
            if (admitted) {
                peer.counters().increment("bryan.founder.joined");
            } else {
                tryMember(members, i + 1);
            }
        });
    }

    /**
     * A peer alone again after it gave up on its last successor asks that peer to admit it, once
     * per stabilisation until one does: silence under overload is not a crash, and two peers
     * that dropped each other would otherwise serve as two rings for ever (seen: two overloaded
     * peers each took every write alone for the rest of a bench run).
     */
    private void rejoin() {
        if (rejoining) {
            return;
        }
        rejoining = true;
        NodeRef via = lost;
        askToAdmit(via).thenAccept(admitted -> {
            rejoining = false;
            if (admitted) {
                peer.counters().increment("bryan.rejoined");
                lost = null;
            }
        });
    }

    /** {@link #askToAdmit(NodeRef, Duration)} within the operation deadline. */
    private CompletableFuture<Boolean> askToAdmit(NodeRef via) {
        return askToAdmit(via, peer.settings().operationTimeout());
    }

    /** One routed join REGISTER through {@code via}; on a 200 from another peer, takes its links. Never fails. */
    private CompletableFuture<Boolean> askToAdmit(NodeRef via, Duration within) {
        return RoutedCall.forRing(peer, peer.self().id(), registration((int) peer.linkExpires(), false), null, via, true,
                within).run().handle((outcome, failure) -> {
                    if (peer.isClosing() || failure != null || outcome.status() != 200 || outcome.responder() == null
                            || outcome.responder().equals(peer.self())) {
                        return false;
                    }
                    var successors = new ArrayList<NodeRef>();
                    successors.add(outcome.responder());
                    successors.addAll(outcome.linked(LinkHeader.Kind.S));
                    links().successors(successors);
                    outcome.links().forEach(l -> links().hint(l.peer()));
                    successorHeardNanos = System.nanoTime();
                    admitter = outcome.responder();
                    admittedNanos = successorHeardNanos;
                    handed(handedEarly);
                    peer.joined().complete(null);
                    peer.checkPlaced();
                    stabilize();
                    return true;
                });
    }

    /** Stabilisation: REGISTER with S1; adopt its predecessor if that lies between; S1 takes this peer as its P. */
    void stabilize() {
        if (stabilizing || !peer.joined().isDone()) {
            return;
        }
        NodeRef successor = links().successor();
        if (successor.equals(peer.self())) {
            if (links().predecessor() != null) {
                links().successors(List.of(links().predecessor())); // a ring of one meets its first peer
            } else if (lost != null) {
                rejoin();
            }
            return;
        }
        lost = null; // not alone (any more): healed by a rejoin or by another peer's stabilisation
        askAgainIfNeverHanded();
        stabilizing = true;
        peer.send(successor, registration((int) peer.linkExpires(), true), peer.settings().requestTimeout())
                .whenComplete((answer, failure) -> {
                    stabilizing = false;
                    if (failure != null) {
                        successorFailed(successor, failure);
                        return;
                    }
                    if (answer.status() != 200) {
                        return;
                    }
                    var list = new ArrayList<NodeRef>();
                    List<NodeRef> between = answer.linked(LinkHeader.Kind.P);
                    if (!between.isEmpty() && between.get(0).id().inOpen(peer.self().id(), successor.id())) {
                        list.add(between.get(0));
                    }
                    list.add(successor);
                    list.addAll(answer.linked(LinkHeader.Kind.S));
                    links().successors(list);
                });
    }

    /**
     * Drops a silent successor after the usual run of timeouts. The last peer known is dropped only
     * after twice the operation deadline without an answer: then this peer carries on as a ring of one.
     */
    private void successorFailed(NodeRef successor, Throwable failure) {
        peer.failed(successor, failure);
        boolean lastKnown = links().successor().equals(successor);
        if (lastKnown && System.nanoTime() - successorHeardNanos > 2 * peer.settings().operationTimeout().toNanos()) {
            peer.counters().increment("bryan.isolated");
            links().drop(successor, true);
            if (links().successor().equals(peer.self())) {
                lost = successor;
            }
        }
    }

    /** Any signed answer from {@code answerer} (BryanPeer#send): the successor is alive if it answered. */
    void heard(NodeRef answerer) {
        if (answerer.equals(links().successor())) {
            successorHeardNanos = System.nanoTime();
        }
    }

    /** Failure detection of P by timeout: REGISTER with it (it learns this peer as a successor candidate). */
    void checkPredecessor() {
        NodeRef predecessor = links().predecessor();
        if (checking || predecessor == null) {
            return;
        }
        checking = true;
        peer.send(predecessor, registration((int) peer.linkExpires(), true), peer.settings().requestTimeout())
                .whenComplete((answer, failure) -> {
                    checking = false;
                    if (failure != null) {
                        peer.failed(predecessor, failure);
                    }
                });
    }

    /** Refreshes the next finger whose start lies beyond S1, by a routed find (one per call). */
    void fixFingers() {
        if (fixing || !peer.joined().isDone()) {
            return;
        }
        NodeRef successor = links().successor();
        while (nextFinger < Id.BITS && start(nextFinger).inHalfOpen(peer.self().id(), successor.id())) {
            links().finger(nextFinger++, successor);
        }
        if (nextFinger >= Id.BITS) {
            nextFinger = 0;
            return;
        }
        int index = nextFinger;
        Id start = start(index);
        var op = new OpHeader(OpHeader.Op.FIND, start, -1);
        fixing = true;
        RoutedCall.forRing(peer, start, peer.request((int) peer.linkExpires(), List.of(), op, "", new byte[0]),
                () -> Handlers.act(peer, op, "", new byte[0], peer.self()), null, true, peer.settings().requestTimeout().multipliedBy(2))
                .run().whenComplete((outcome, failure) -> {
                    fixing = false;
                    if (failure != null || outcome.responder() == null) {
                        return;
                    }
                    NodeRef finger = outcome.responder();
                    int i = index;
                    do {
                        links().finger(i++, finger);
                    } while (i < Id.BITS && start(i).inHalfOpen(peer.self().id(), finger.id()));
                    nextFinger = i >= Id.BITS ? 0 : i;
                });
    }

    private Id start(int i) {
        return peer.self().id().plusPowerOfTwo(i);
    }

    /** This peer's answer to a plain peer registration: leave, stabilisation, predecessor check or join. */
    PeerResponse registration(Incoming in) {
        NodeRef sender = in.sender().peer();
        if (in.expires() == 0) {
            leaving(sender, in);
            return links200(false);
        }
        if (in.names(peer.self(), LinkHeader.Kind.S, 1)) {
            notified(sender);
            return links200(false);
        }
        if (in.names(peer.self(), LinkHeader.Kind.P, 0)) {
            if (sender.id().inOpen(peer.self().id(), links().successor().id()) || links().successors().isEmpty()) {
                var list = new ArrayList<NodeRef>();
                list.add(sender);
                list.addAll(links().successors());
                links().successors(list);
            }
            return links200(false);
        }
        return admit(sender);
    }

    /**
     * A join: admitted here when this peer is the newcomer's successor-to-be, else redirected
     * closer. A newcomer that is still this peer's predecessor restarted on its address (same
     * Peer-ID, nothing stored): admitted here too, and a peer that would send it to itself sends it
     * to the peer after it. The admitted newcomer is handed its records ({@link #handIn}).
     */
    private PeerResponse admit(NodeRef newcomer) {
        if (!peer.joined().isDone() || peer.isClosing()) {
            return peer.reply(480, "Not on the ring yet", null, List.of(), "", new byte[0]);
        }
        if (links().responsibleFor(newcomer.id()) || newcomer.equals(links().predecessor()) || links().successors().isEmpty()) {
            peer.counters().increment("bryan.admitted");
            PeerResponse admitted = links200(true);
            handIn(newcomer);
            return admitted;
        }
        NodeRef next = links().nextHop(newcomer.id());
        if (next.equals(newcomer)) {
            next = links().nextHop(newcomer.id().plusPowerOfTwo(0));
        }
        if (next.equals(peer.self()) || next.equals(newcomer)) {
            return peer.reply(480, "Ring repairing: no closer peer known", null, List.of(), "", new byte[0]);
        }
        return peer.reply(302, "Moved Temporarily", next, List.of(), "", new byte[0]);
    }

    private PeerResponse links200(boolean withFingers) {
        return peer.reply(200, "OK", null, links().headers(peer.linkExpires(), withFingers), "", new byte[0]);
    }

    /** {@code candidate} says this peer is its S1: take it as P if it lies closer, and hand it its records. */
    private void notified(NodeRef candidate) {
        NodeRef old = links().predecessor();
        if (candidate.equals(peer.self()) || candidate.equals(old)
                || (old != null && !candidate.id().inOpen(old.id(), peer.self().id()))) {
            return;
        }
        links().predecessor(candidate);
        peer.checkPlaced();
        links().hint(candidate);
        peer.store().handOver(peer.self().id(), candidate);
    }

    /**
     * Hands an admitted newcomer its records, then tells it so (DHT-Op: handed): one between this
     * peer and its predecessor gets (P, newcomer]; one restarted on its address (still this peer's
     * P) or one this peer admits without a predecessor gets every record outside (newcomer, self]:
     * the replicas of its range and of those before it, which this peer held as their successor.
     * Until then the newcomer serves no range, so it never answers "absent" for a resource it has
     * not received yet, nor takes a write on an empty record. One hand-over per newcomer at a time.
     */
    private void handIn(NodeRef newcomer) {
        if (newcomer.equals(handingTo)) {
            return;
        }
        handingTo = newcomer;
        NodeRef old = links().predecessor();
        boolean between = old != null && newcomer.id().inOpen(old.id(), peer.self().id());
        Id from = between ? old.id() : peer.self().id();
        peer.store().handOver(from, newcomer).whenComplete((all, failure) -> {
            handingTo = null;
            if (Boolean.TRUE.equals(all) && !peer.isClosing()) {
                peer.counters().increment("bryan.handed-in");
                var handed = new OpHeader(OpHeader.Op.HANDED, null, -1);
                peer.send(newcomer, peer.request((int) peer.linkExpires(), List.of(), handed, "", new byte[0]),
                        peer.settings().requestTimeout());
            }
        });
    }

    /** DHT-Op: handed from {@code sender}: when it admitted this peer, this peer holds its range now. */
    void handed(NodeRef sender) {
        if (!links().awaitingRecords() || sender == null) {
            return;
        }
        if (sender.equals(admitter)) {
            links().awaitingRecords(false);
            handedEarly = null;
            peer.checkPlaced();
        } else {
            handedEarly = sender;
        }
    }

    /**
     * A peer admitted but never handed its records (the HANDED lost, or its admitter gone) asks its
     * successor to admit it again after twice the operation deadline: otherwise it would serve no
     * range for ever.
     */
    private void askAgainIfNeverHanded() {
        long waited = System.nanoTime() - admittedNanos;
        if (links().awaitingRecords() && admitter != null && !rejoining
                && waited > 2 * peer.settings().operationTimeout().toNanos()) {
            peer.counters().increment("bryan.join.retries");
            admittedNanos = System.nanoTime();
            rejoining = true;
            askToAdmit(links().successor()).whenComplete((admitted, failure) -> rejoining = false);
        }
    }

    /** A neighbour leaves (Expires: 0): close the gap with the links it names. */
    private void leaving(NodeRef leaver, Incoming in) {
        List<NodeRef> successors = links().successors();
        boolean wasPredecessor = leaver.equals(links().predecessor());
        var list = new ArrayList<NodeRef>();
        if (successors.contains(leaver)) {
            list.addAll(successors.subList(0, successors.indexOf(leaver)));
            list.addAll(in.linked(LinkHeader.Kind.S));
            list.addAll(successors.subList(successors.indexOf(leaver) + 1, successors.size()));
        }
        links().drop(leaver, true);
        if (!list.isEmpty()) {
            links().successors(list);
        }
        if (wasPredecessor) {
            List<NodeRef> before = in.linked(LinkHeader.Kind.P);
            links().predecessor(before.isEmpty() ? null : before.get(0));
        }
        peer.counters().increment("bryan.departures");
    }

    /** Graceful leave: every record to S1, then Expires: 0 to S1 and P. Completes when they answered or failed. */
    CompletableFuture<Void> leave() {
        NodeRef successor = links().successor();
        if (successor.equals(peer.self())) {
            return CompletableFuture.completedFuture(null);
        }
        NodeRef predecessor = links().predecessor();
        return peer.store().handOverAll(successor).thenCompose(handed -> {
            PeerRequest goodbye = registration(0, true);
            var told = new ArrayList<CompletableFuture<?>>();
            told.add(peer.send(successor, goodbye, peer.settings().requestTimeout()).exceptionally(e -> null));
            if (predecessor != null && !predecessor.equals(successor)) {
                told.add(peer.send(predecessor, goodbye, peer.settings().requestTimeout()).exceptionally(e -> null));
            }
            return CompletableFuture.allOf(told.toArray(CompletableFuture[]::new));
        });
    }
}
