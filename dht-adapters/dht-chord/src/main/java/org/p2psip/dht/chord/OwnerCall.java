package org.p2psip.dht.chord;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Attempts;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * One get, put or remove carried to its key's owner: look the owner up, ask it, and while the
 * ring repairs (the lookup fails, or the node found says it is not the owner) try again after a
 * short pause, until the operation's deadline ({@link Attempts}). A write is not retried once it
 * reached an owner that failed to answer: it may have been applied, and a retry would be refused
 * as stale. Not thread-safe: runs on the node's event loop.
 */
final class OwnerCall {

    private final ChordNode node;
    private final Id key;
    private final int type;
    private final byte[] payload;
    private final boolean idempotent;
    private final Attempts<byte[]> attempts;

    OwnerCall(ChordNode node, Id key, int type, byte[] payload, boolean idempotent, long deadlineNanos) {
        this.node = node;
        this.key = key;
        this.type = type;
        this.payload = payload;
        this.idempotent = idempotent;
        long pause = Math.max(10, node.settings().stabilize().toMillis() / 2);
        this.attempts = new Attempts<>(node.ringLoop(), key, deadlineNanos, pause,
                () -> node.counters().increment("chord.retries"));
    }

    /** Starts the call; the stage fails with TIMEOUT at the deadline whatever is still under way. */
    CompletableFuture<byte[]> run() {
        return attempts.run(this::attempt);
    }

    private void attempt() {
        if (attempts.isDone()) {
            return;
        }
        if (node.isClosing()) {
            attempts.fail(new DhtException(Reason.CLOSED, node.self() + " is closed"));
            return;
        }
        if (!node.joined().isDone()) {
            attempts.retry(new DhtException(Reason.UNREACHABLE, node.self() + " has not joined the ring yet"));
            return;
        }
        node.lookup(key, false).whenComplete((route, failure) -> {
            if (failure != null) {
                attempts.retry(DhtException.from(failure));
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
            long left = attempts.leftMillis();
            // a write's answer waits for the replicas' answers, so it gets the operation's whole deadline
            long timeout = idempotent ? Math.min(left, node.settings().requestTimeout().toMillis()) : left;
            answer = node.request(owner, type, payload, Duration.ofMillis(timeout));
        }
        answer.whenComplete((bytes, failure) -> {
            if (failure != null) {
                DhtException why = DhtException.from(failure);
                if (!owner.equals(node.self())) {
                    node.membership().noAnswer(owner, why, false); // a user's timeout: probed, not dropped
                }
                if (idempotent && why.reason() != Reason.OVERLOADED) {
                    attempts.retry(why);
                } else {
                    attempts.fail(why);
                }
            } else if (bytes.length > 0 && bytes[0] == MessageType.NOT_OWNER) {
                node.membership().heard(owner);
                node.counters().increment("chord.not-owner");
                attempts.retry(new DhtException(Reason.UNREACHABLE, owner + " does not own " + key + " (ring repairing)"));
            } else if (bytes.length > 0 && bytes[0] == MessageType.UNREPLICATED) {
                node.membership().heard(owner);
                // stored at the owner, so not sent again (a retry would be refused as stale)
                attempts.fail(new DhtException(Reason.UNREACHABLE, owner + " stored the write, but a replica did not"
                        + " take its copy: not acknowledged"));
            } else {
                node.membership().heard(owner);
                attempts.succeed(bytes);
            }
        });
    }
}
