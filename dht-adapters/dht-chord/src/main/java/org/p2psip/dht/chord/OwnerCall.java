package org.p2psip.dht.chord;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * One get, put or remove carried to its key's owner: look the owner up, ask it, and while the
 * ring repairs (the lookup fails, or the node found says it is not the owner) try again after a
 * short pause, until the operation's deadline. A write is not retried once it reached an owner
 * that failed to answer: it may have been applied, and a retry would be refused as stale.
 * Not thread-safe: runs on the node's event loop.
 */
final class OwnerCall {

    private final ChordNode node;
    private final Id key;
    private final int type;
    private final byte[] payload;
    private final boolean idempotent;
    private final long deadlineNanos;
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private DhtException lastFailure;

    OwnerCall(ChordNode node, Id key, int type, byte[] payload, boolean idempotent, long deadlineNanos) {
        this.node = node;
        this.key = key;
        this.type = type;
        this.payload = payload;
        this.idempotent = idempotent;
        this.deadlineNanos = deadlineNanos;
    }

    /** Starts the call; the stage fails with TIMEOUT at the deadline whatever is still under way. */
    CompletableFuture<byte[]> run() {
        long left = Math.max(0, deadlineNanos - System.nanoTime());
        var timer = node.loop().schedule(() -> result.completeExceptionally(lastFailure != null
                ? new DhtException(Reason.TIMEOUT, "deadline passed; last failure: " + lastFailure.getMessage())
                : new DhtException(Reason.TIMEOUT, "no answer about " + key + " before the deadline")),
                left, TimeUnit.NANOSECONDS);
        result.whenComplete((answer, failure) -> timer.cancel(false));
        attempt();
        return result;
    }

    private void attempt() {
        if (result.isDone()) {
            return;
        }
        if (node.isClosing()) {
            result.completeExceptionally(new DhtException(Reason.CLOSED, node.self() + " is closed"));
            return;
        }
        if (!node.joined().isDone()) {
            retryOrFail(new DhtException(Reason.UNREACHABLE, node.self() + " has not joined the ring yet"));
            return;
        }
        node.lookup(key, false).whenComplete((route, failure) -> {
            if (failure != null) {
                retryOrFail(unwrap(failure));
            } else {
                ask(route.owner());
            }
        });
    }

    private void ask(NodeRef owner) {
        CompletableFuture<byte[]> answer;
        if (owner.equals(node.self())) {
            answer = node.owner().handle(type, payload);
        } else {
            long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
            // a write's answer waits for the replicas' answers, so it gets the operation's whole deadline
            long timeout = idempotent ? Math.min(left, node.settings().requestTimeout().toMillis()) : left;
            answer = node.transport().request(owner.address(), type, payload, java.time.Duration.ofMillis(timeout))
                    .toCompletableFuture();
        }
        answer.whenComplete((bytes, failure) -> {
            if (failure != null) {
                DhtException why = unwrap(failure);
                if (!owner.equals(node.self())) {
                    node.membership().failed(owner, why);
                }
                if (idempotent && why.reason() != Reason.OVERLOADED) {
                    retryOrFail(why);
                } else {
                    result.completeExceptionally(why);
                }
            } else if (bytes.length > 0 && bytes[0] == MessageType.NOT_OWNER) {
                node.membership().heard(owner);
                node.counters().increment("chord.not-owner");
                retryOrFail(new DhtException(Reason.UNREACHABLE, owner + " does not own " + key + " (ring repairing)"));
            } else {
                node.membership().heard(owner);
                result.complete(bytes);
            }
        });
    }

    private void retryOrFail(DhtException why) {
        lastFailure = why;
        long pause = Math.max(10, node.settings().stabilize().toMillis() / 2);
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause) >= deadlineNanos) {
            result.completeExceptionally(lastFailure);
            return;
        }
        node.counters().increment("chord.retries");
        node.loop().schedule(this::attempt, pause, TimeUnit.MILLISECONDS);
    }

    private static DhtException unwrap(Throwable failure) {
        return DhtException.from(failure);
    }
}
