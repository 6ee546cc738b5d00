package org.p2psip.dht.bryan;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Attempts;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * One peer REGISTER routed iteratively to the peer responsible for its key: this peer sends it to
 * the closest peer it knows; a 302 names the next one, which it asks in turn, until a peer acts
 * on it (200, or 412 for a refused compare-and-set). While the ring repairs (480, a redirect
 * loop, a silent peer) it starts over after a short pause, until the deadline ({@link Attempts}),
 * routing around the peers that did not answer it. A write is not sent again once a peer that
 * may own its key failed to answer it: that peer may have applied it.
 *
 * <p>A user's operation goes in one hop while the peer's view of the whole overlay (dht-ring's
 * {@code Members}) names its key's owner: straight to that place. A stale view costs a hop, never
 * the operation: a place that is not the owner redirects it (302) to the owner its own view names,
 * with DHT-View entries that correct this peer's view, and the redirect is followed as above. An
 * owner named by the view that does not take the operation (silent, refusing, not on the ring) is
 * suspected in the view and the operation is routed iteratively at once; a write that timed out
 * there fails instead, since it may have been applied. Only the first attempt goes by the view,
 * and never to this peer itself: a view naming one of this peer's places for a key none of them
 * owns is stale. Not thread-safe: runs on the peer's loop.
 */
final class RoutedCall {

    private final BryanPeer peer;
    private final Id key;
    private final Send send;
    private final Supplier<CompletableFuture<PeerAnswer>> local;
    private final NodeRef first;
    private final boolean idempotent;
    private final boolean maintenance;
    /** Whether this is a user's operation: it goes by the peer's view while that names the owner. */
    private final boolean user;
    /**
     * Whether the call has gone by the view once: its other attempts are routed iteratively. One
     * that does not settle through the owner the view names (a redirect to a place that answers
     * 480 while views are stale) would take the same path on every retry until its deadline.
     */
    private boolean iterative;
    private final Attempts<PeerAnswer> attempts;
    /** The peers that did not answer this call: its later attempts route around them. */
    private final Set<NodeRef> silent = new HashSet<>();
    /** The peers asked in this attempt: one asked twice means the redirects went round in a circle. */
    private final Set<NodeRef> asked = new HashSet<>();
    /** The last peer that did not answer: a get names it to the next peer (see {@link OpHeader#around}). */
    private NodeRef lastSilent;

    /** How a call's message goes to one peer. */
    private interface Send {
        /** @param around the last peer that failed to answer this call; null: none */
        CompletableFuture<Answer> to(NodeRef target, Duration within, NodeRef around);
    }

    /**
     * A user's get, put or remove, acted on here when this peer is responsible, else sent through
     * the {@link Outbox}, which batches the users' operations per peer; its peer REGISTER is only
     * built if it leaves alone. Its timeouts do not count towards taking a peer for failed. A get
     * names the last peer that did not answer it, so that this peer's successor, which holds its
     * copies, may answer in its stead.
     */
    static RoutedCall forUser(BryanPeer peer, OpsBody.Op op, boolean idempotent, Duration timeout) {
        Send send = (target, within, around) -> peer.outbox().send(target, around == null || op.op().op() != OpHeader.Op.GET
                ? op : new OpsBody.Op(op.op().around(around.id()), op.contentType(), op.body()), within);
        return new RoutedCall(peer, op.op().key(), send,
                () -> Handlers.act(peer, op.op(), op.contentType(), op.body(), peer.self()), null, idempotent, false, true,
                timeout);
    }

    /**
     * The ring's own {@code request} (a join, a finger's find), sent as it is; its timeouts count
     * towards taking a peer for failed.
     *
     * @param local what to do when this peer is itself responsible; null: always ask a peer
     * @param first the peer to ask first on every attempt (a bootstrap); null: this peer's links decide
     */
    static RoutedCall forRing(BryanPeer peer, Id key, PeerRequest request, Supplier<CompletableFuture<PeerAnswer>> local,
                              NodeRef first, boolean idempotent, Duration timeout) {
        return new RoutedCall(peer, key, (target, within, around) -> peer.send(target, request, within), local, first,
                idempotent, true, false, timeout);
    }

    /**
     * @param maintenance whether a timeout here counts towards taking the peer for failed: only the
     *        ring's own traffic does, so that an overloaded node whose users' operations time out
     *        does not drop live neighbours (a dropped predecessor stops it serving its whole range
     *        until the next stabilisation, which feeds the overload)
     * @param user whether this is a user's operation, which goes straight to the owner the peer's
     *        view names and counts its hops in {@code bryan.operation.hops}
     */
    private RoutedCall(BryanPeer peer, Id key, Send send, Supplier<CompletableFuture<PeerAnswer>> local, NodeRef first,
                       boolean idempotent, boolean maintenance, boolean user, Duration timeout) {
        this.peer = peer;
        this.key = key;
        this.send = send;
        this.local = local;
        this.first = first;
        this.idempotent = idempotent;
        this.maintenance = maintenance;
        this.user = user;
        long pause = Math.max(10, peer.settings().stabilize().toMillis() / 4);
        this.attempts = new Attempts<>(peer.loop(), key, peer.loop().nanoTime() + timeout.toNanos(), pause,
                () -> peer.counters().increment("bryan.retries"));
    }

    CompletableFuture<PeerAnswer> run() {
        return attempts.run(this::attempt);
    }

    private void attempt() {
        if (attempts.isDone()) {
            return;
        }
        if (first != null) {
            ask(first, 0, false);
            return;
        }
        if (peer.isClosing()) {
            attempts.fail(new DhtException(Reason.CLOSED, peer.self() + " is closed"));
            return;
        }
        if (!peer.joined().isDone()) {
            attempts.retry(new DhtException(Reason.UNREACHABLE, peer.self() + " has not joined the overlay yet"));
            return;
        }
        if (local != null && peer.links().table().owns(key)) {
            local.get().whenComplete((outcome, failure) -> {
                if (failure == null && !settles(outcome.status())) {
                    refused(peer.self(), outcome.status(), outcome.reason()); // as from another peer
                } else {
                    settle(outcome, failure);
                }
            });
            return;
        }
        NodeRef owner = user && !iterative ? peer.view().owner(key) : null;
        if (owner != null && !owner.address().equals(peer.self().address())) {
            iterative = true; // a view that led nowhere the first time would lead there again on the retry
            peer.counters().increment("bryan.one-hop");
            ask(owner, 0, true);
            return;
        }
        NodeRef next = peer.links().nextHop(key, silent);
        if (next.equals(peer.self())) {
            attempts.retry(new DhtException(Reason.UNREACHABLE, peer.self() + " knows no peer responsible for " + key));
            return;
        }
        ask(next, 0, false);
    }

    /** Asks {@code target}, {@code hops} redirects into this attempt; {@code direct}: the owner the view named. */
    private void ask(NodeRef target, int hops, boolean direct) {
        if (attempts.isDone()) {
            return;
        }
        if (hops > peer.settings().maxHops()) {
            attempts.retry(new DhtException(Reason.UNREACHABLE, "more than " + peer.settings().maxHops() + " redirects for " + key));
            return;
        }
        if (hops == 0) {
            asked.clear();
        }
        if (!asked.add(target)) {
            // peers whose links disagree while the ring repairs send a key round in a circle: that
            // went on to max-hops, most of the deadline, where a pause lets the ring settle first
            peer.counters().increment("bryan.redirect.loops");
            attempts.retry(new DhtException(Reason.UNREACHABLE, "redirected in a circle back to " + target + " for " + key));
            return;
        }
        boolean again = mayResend(target);
        long leftMillis = attempts.leftMillis();
        // a write's answer waits for the replicas' answers: it gets what is left of the deadline
        long timeout = again ? Math.min(leftMillis, peer.settings().requestTimeout().toMillis()) : leftMillis;
        var sent = send.to(target, Duration.ofMillis(timeout), lastSilent);
        sent.whenComplete((answer, failure) -> {
            if (failure != null) {
                DhtException why = DhtException.from(failure);
                peer.membership().noAnswer(target, why, maintenance);
                silent.add(target);
                lastSilent = target;
                if (direct && why.reason() != Reason.OVERLOADED) {
                    peer.view().suspect(target.address());
                    if (idempotent || why.reason() == Reason.UNREACHABLE) {
                        routeIteratively(); // refused, or a read: it was not applied there
                        return;
                    }
                }
                if (again) {
                    attempts.retry(why);
                } else {
                    attempts.fail(why);
                }
                return;
            }
            int status = answer.status();
            NodeRef next = status / 100 == 3 ? nextOf(answer) : null;
            if (next != null) {
                if (direct) {
                    peer.counters().increment("bryan.one-hop.redirects");
                }
                peer.links().table().hint(next);
                ask(next, hops + 1, false);
            } else if (direct && (status == 480 || status / 100 == 3)) {
                routeIteratively(); // the place named is not serving the key: no pause, the ring is not at fault
            } else if (settles(status)) {
                peer.counters().add("bryan.lookup.hops", hops + 1L);
                peer.counters().increment("bryan.lookup.hops." + (hops + 1));
                if (user) {
                    peer.counters().add("bryan.operation.hops", hops + 1L);
                }
                if (!Handlers.keepCarried(peer, answer)) {
                    attempts.fail(new DhtException(Reason.UNREACHABLE, target + " answered a write with an unreadable copy"));
                    return;
                }
                settle(PeerAnswer.of(answer), null);
            } else if (status == 480 || status / 100 == 3) {
                attempts.retry(new DhtException(Reason.UNREACHABLE, target + " answered " + status + " " + answer.reason()));
            } else {
                refused(target, status, answer.reason());
            }
        });
    }

    /**
     * The first peer a 302 names that has not failed this call, is not this peer and was not asked
     * in this attempt yet (else the first asked one, which ends the attempt as a circle); when it
     * names only silent peers, the next hop from this peer's own links if that is another peer
     * than those; else null.
     */
    private NodeRef nextOf(Answer answer) {
        NodeRef again = null;
        for (NodeRef c : answer.contacts()) {
            if (silent.contains(c) || c.equals(peer.self())) {
                continue;
            }
            if (!asked.contains(c)) {
                return c;
            }
            again = again == null ? c : again;
        }
        if (again != null) {
            return again;
        }
        if (answer.contacts().isEmpty() || !silent.containsAll(answer.contacts())) {
            return null;
        }
        NodeRef around = peer.links().nextHop(key, silent);
        return around.equals(peer.self()) || around.equals(answer.responder()) ? null : around;
    }

    /** A hop by the view went wrong: this call is routed iteratively from now on, starting at once. */
    private void routeIteratively() {
        peer.counters().increment("bryan.one-hop.fallbacks");
        iterative = true;
        attempt();
    }

    /**
     * Whether the operation may go out again once {@code target} failed to answer it: a read
     * always; a write when {@code target} lies strictly between this peer and the key, so that it
     * was asked as a router, not as the owner (a peer owns the keys up to its own id, never one
     * beyond it, unless it thinks itself alone). Without this, every user's write through a dead
     * finger failed until this peer dropped the finger.
     */
    private boolean mayResend(NodeRef target) {
        return idempotent || target.id().inOpen(peer.self().id(), key);
    }

    /** Whether an answer acts on the operation: a 200, or a 412 for a refused compare-and-set. */
    private static boolean settles(int status) {
        return status == 200 || status == 412;
    }

    /** Ends the call with an answer that neither settles it nor is worth another attempt. */
    private void refused(NodeRef by, int status, String reason) {
        attempts.fail(new DhtException(Reason.UNREACHABLE, by + " refused: " + status + " " + reason));
    }

    /** Ends the call; a settled one counts as a lookup (bryan.lookup.hops counts its hops: none when local; bryan.lookup.hops.H the lookups of H hops). */
    private void settle(PeerAnswer outcome, Throwable failure) {
        if (failure != null) {
            attempts.fail(failure);
        } else {
            peer.counters().increment("bryan.lookups");
            attempts.succeed(outcome);
        }
    }
}
