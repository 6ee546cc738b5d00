package org.p2psip.dht.chord;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Attempts;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * One get, put or remove carried to its key's owner. While the node's view of the whole ring
 * routes (dht-ring's {@code Members}: a small ring, one hop on), the owner is the place the view
 * maps the key to, asked at once; else, or once a hop by the view went wrong, it is looked up
 * through the ring. While the ring repairs (the lookup fails, or the node found says it is not the
 * owner) the call tries again after a short pause, until the operation's deadline
 * ({@link Attempts}). A stale view costs a hop, never the operation: a place that is not the owner
 * answers with the owner its own view names, which is asked next, and a member that does not take
 * the request is suspected in the view and the ring's lookup is asked instead. A write is not
 * retried once it reached an owner that failed to answer in time: it may have been applied, and a
 * retry would be refused as stale. Not thread-safe: runs on the node's event loop.
 */
final class OwnerCall {

    /** Owners named in NOT_OWNER answers that one call asks at most before it looks the owner up. */
    private static final int REDIRECTS = 2;

    private final ChordNode node;
    private final Id key;
    private final int type;
    private final byte[] payload;
    private final boolean idempotent;
    private final Attempts<byte[]> attempts;
    /** Whether this call routes by the ring's lookup: the view routes nothing, or one of its hops went wrong. */
    private boolean byLookup;
    private int redirects;

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
        NodeRef direct = byLookup ? null : node.view().owner(key);
        if (direct != null) {
            node.counters().increment("chord.one-hop");
            ask(direct, true);
            return;
        }
        node.lookup(key, false).whenComplete((route, failure) -> {
            if (failure != null) {
                attempts.retry(DhtException.from(failure));
            } else {
                ask(route.owner(), false);
            }
        });
    }

    /** Asks {@code owner}; {@code direct}: named by a view, not found by the ring's lookup. */
    private void ask(NodeRef owner, boolean direct) {
        CompletableFuture<byte[]> answer;
        if (owner.equals(node.self())) {
            answer = node.owner().handle(type, payload, null);
        } else {
            long left = attempts.leftMillis();
            // a write's answer waits for the replicas' answers, so it gets the operation's whole deadline
            long timeout = idempotent ? Math.min(left, node.settings().requestTimeout().toMillis()) : left;
            answer = node.request(owner, type, payload, Duration.ofMillis(timeout));
        }
        answer.whenComplete((bytes, failure) -> {
            if (failure != null) {
                failed(owner, direct, DhtException.from(failure));
            } else if (bytes.length > 0 && bytes[0] == MessageType.NOT_OWNER) {
                node.membership().heard(owner);
                notOwner(owner, direct, bytes);
            } else if (bytes.length > 0 && bytes[0] == MessageType.UNREPLICATED) {
                node.membership().heard(owner);
                // stored at the owner, so not sent again (a retry would be refused as stale)
                attempts.fail(new DhtException(Reason.UNREACHABLE, owner + " stored the write, but a replica did not"
                        + " take its copy: not acknowledged"));
            } else {
                node.membership().heard(owner);
                if (node.keepCarried(bytes)) {
                    attempts.succeed(bytes);
                } else {
                    attempts.fail(new DhtException(Reason.UNREACHABLE, owner + " stored the write, but its copy"
                            + " for this node could not be kept here: not acknowledged"));
                }
            }
        });
    }

    /**
     * {@code owner} did not take the request in time or at all. One a view named (gone, silenced
     * from this node, or not hosting the place) is suspected in the view, and the ring's lookup is
     * asked at once, by a read, or by a write that never arrived (refused); a write that timed out
     * may have been applied and fails, as after a lookup. Overload suspects nobody, and fails.
     */
    private void failed(NodeRef owner, boolean direct, DhtException why) {
        if (!owner.equals(node.self())) {
            node.membership().noAnswer(owner, why, false); // a user's timeout: probed, not dropped
        }
        boolean overloaded = why.reason() == Reason.OVERLOADED;
        if (direct && !overloaded) {
            node.view().suspect(owner.address());
            if (idempotent || why.reason() == Reason.UNREACHABLE) {
                lookUpInstead();
                return;
            }
        }
        if (idempotent && !overloaded) {
            attempts.retry(why);
        } else {
            attempts.fail(why);
        }
    }

    /**
     * {@code owner} does not own the key. After a hop by a view, the owner that the answering
     * node's view names is asked next, when it is another place; else the ring's lookup at once.
     * After a lookup, the ring is repairing: a pause, then a fresh lookup.
     */
    private void notOwner(NodeRef owner, boolean direct, byte[] answer) {
        node.counters().increment("chord.not-owner");
        var why = new DhtException(Reason.UNREACHABLE, owner + " does not own " + key + " (ring repairing)");
        if (!direct) {
            attempts.retry(why);
            return;
        }
        NodeRef named = namedOwner(answer);
        if (named != null && !named.equals(owner) && redirects < REDIRECTS) {
            redirects++;
            node.counters().increment("chord.one-hop.redirects");
            node.view().learn(named.address());
            ask(named, true);
        } else {
            lookUpInstead();
        }
    }

    /** A hop by the view went wrong: this call looks the owner up from now on, starting at once. */
    private void lookUpInstead() {
        node.counters().increment("chord.one-hop.fallbacks");
        byLookup = true;
        if (attempts.isDone()) {
            return;
        }
        attempt();
    }

    /** The owner a NOT_OWNER answer names (status:u8, blob: a node or nothing); null when none or unreadable. */
    private static NodeRef namedOwner(byte[] answer) {
        try {
            var in = new ChordCodec.Reader(answer);
            in.u8();
            byte[] body = in.blob();
            return body.length == 0 ? null : new ChordCodec.Reader(body).node();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
