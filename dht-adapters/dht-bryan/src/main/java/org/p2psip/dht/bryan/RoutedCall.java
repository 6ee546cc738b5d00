package org.p2psip.dht.bryan;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
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
 * loop, a silent peer on a read) it starts over after a short pause, until the deadline
 * ({@link Attempts}). A write is not sent again once a peer failed to answer it: that peer may
 * have applied it. Not thread-safe: runs on the peer's loop.
 */
final class RoutedCall {

    private final BryanPeer peer;
    private final Id key;
    private final BiFunction<NodeRef, Duration, CompletableFuture<Answer>> send;
    private final Supplier<CompletableFuture<Outcome>> local;
    private final NodeRef first;
    private final boolean idempotent;
    private final boolean maintenance;
    private final Attempts<Outcome> attempts;

    /**
     * A user's get, put or remove, acted on here when this peer is responsible, else sent through
     * the {@link Outbox}, which batches the users' operations per peer; its peer REGISTER is only
     * built if it leaves alone. Its timeouts do not count towards taking a peer for failed.
     */
    static RoutedCall forUser(BryanPeer peer, OpsBody.Op op, boolean idempotent, Duration timeout) {
        return new RoutedCall(peer, op.op().key(), (target, within) -> peer.outbox().send(target, op, within),
                () -> Handlers.act(peer, op.op(), op.contentType(), op.body(), peer.self()), null, idempotent, false, timeout);
    }

    /**
     * The ring's own {@code request} (a join, a finger's find), sent as it is; its timeouts count
     * towards taking a peer for failed.
     *
     * @param local what to do when this peer is itself responsible; null: always ask a peer
     * @param first the peer to ask first on every attempt (a bootstrap); null: this peer's links decide
     */
    static RoutedCall forRing(BryanPeer peer, Id key, PeerRequest request, Supplier<CompletableFuture<Outcome>> local,
                              NodeRef first, boolean idempotent, Duration timeout) {
        return new RoutedCall(peer, key, (target, within) -> peer.send(target, request, within), local, first,
                idempotent, true, timeout);
    }

    /**
     * @param maintenance whether a timeout here counts towards taking the peer for failed: only the
     *        ring's own traffic does, so that an overloaded node whose users' operations time out
     *        does not drop live neighbours (a dropped predecessor stops it serving its whole range
     *        until the next stabilisation, which feeds the overload)
     */
    private RoutedCall(BryanPeer peer, Id key, BiFunction<NodeRef, Duration, CompletableFuture<Answer>> send,
                       Supplier<CompletableFuture<Outcome>> local, NodeRef first, boolean idempotent, boolean maintenance,
                       Duration timeout) {
        this.peer = peer;
        this.key = key;
        this.send = send;
        this.local = local;
        this.first = first;
        this.idempotent = idempotent;
        this.maintenance = maintenance;
        long pause = Math.max(10, peer.settings().stabilize().toMillis() / 4);
        this.attempts = new Attempts<>(peer.loop(), key, peer.loop().nanoTime() + timeout.toNanos(), pause,
                () -> peer.counters().increment("bryan.retries"));
    }

    CompletableFuture<Outcome> run() {
        return attempts.run(this::attempt);
    }

    private void attempt() {
        if (attempts.isDone()) {
            return;
        }
        if (first != null) {
            ask(first, 0);
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
        NodeRef next = peer.links().nextHop(key);
        if (next.equals(peer.self())) {
            attempts.retry(new DhtException(Reason.UNREACHABLE, peer.self() + " knows no peer responsible for " + key));
            return;
        }
        ask(next, 0);
    }

    private void ask(NodeRef target, int hops) {
        if (attempts.isDone()) {
            return;
        }
        if (hops > peer.settings().maxHops()) {
            attempts.retry(new DhtException(Reason.UNREACHABLE, "more than " + peer.settings().maxHops() + " redirects for " + key));
            return;
        }
        long leftMillis = attempts.leftMillis();
        // a write's answer waits for the replicas' answers: it gets what is left of the deadline
        long timeout = idempotent ? Math.min(leftMillis, peer.settings().requestTimeout().toMillis()) : leftMillis;
        var sent = send.apply(target, Duration.ofMillis(timeout));
        sent.whenComplete((answer, failure) -> {
            if (failure != null) {
                DhtException why = DhtException.from(failure);
                if (maintenance || why.reason() != Reason.TIMEOUT) {
                    peer.membership().failed(target, why);
                }
                if (idempotent) {
                    attempts.retry(why);
                } else {
                    attempts.fail(why);
                }
                return;
            }
            int status = answer.status();
            if (status / 100 == 3 && answer.contact() != null && !answer.contact().equals(peer.self())) {
                peer.links().table().hint(answer.contact());
                ask(answer.contact(), hops + 1);
            } else if (settles(status)) {
                peer.counters().add("bryan.lookup.hops", hops + 1L);
                peer.counters().increment("bryan.lookup.hops." + (hops + 1));
                if (!Handlers.keepCarried(peer, answer)) {
                    attempts.fail(new DhtException(Reason.UNREACHABLE, target + " answered a write with an unreadable copy"));
                    return;
                }
                settle(Outcome.of(answer), null);
            } else if (status == 480 || status / 100 == 3) {
                attempts.retry(new DhtException(Reason.UNREACHABLE, target + " answered " + status + " " + answer.reason()));
            } else {
                refused(target, status, answer.reason());
            }
        });
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
    private void settle(Outcome outcome, Throwable failure) {
        if (failure != null) {
            attempts.fail(failure);
        } else {
            peer.counters().increment("bryan.lookups");
            attempts.succeed(outcome);
        }
    }
}
