package org.p2psip.dht.bryan;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.SendWindow;

/**
 * The users' routed operations on their way to other peers, pipelined per peer like the replica
 * copies: while a REGISTER to a peer is in flight, the operations sent meanwhile wait and go
 * together in the next one, as a {@code DHT-Op: batch} (an operation that waits alone goes as its
 * own REGISTER). A first batch also waits until its oldest operation is {@code batch-linger} old
 * (a few milliseconds), or until enough are waiting: on the servlet container a peer REGISTER
 * costs about as much as a user's, and an answer comes back so fast that without it a batch held
 * two or three operations. Further REGISTERs leave while others are in flight only with a full
 * batch, and at most {@code peer-window} at once: with one in flight, a peer pair carried at most
 * {@link #MOST_OPS} operations per round trip, and two peers collapsed at about 8,000 REGISTER/s
 * once the queue outgrew that. Each operation keeps its own deadline. Not thread-safe: runs on the
 * peer's loop.
 */
final class Outbox {

    /** What a batch's body adds to each operation's own body, about: its DHT-Op and content type. */
    private static final int OVERHEAD_BYTES = 96;

    /**
     * Operations per batch at most. A batch's request is cut by size, but its answer carries a
     * record for each get (and each refused put), about 200 bytes: 64 of them stay well under
     * the 16 KiB the nodes' SIP stack reads of a datagram (deploy/p2psip_deploy/nodefolder.py),
     * where a batch of 83 empty gets, all that fit 8,000 bytes, could be answered with more.
     */
    static final int MOST_OPS = 64;

    private final BryanPeer peer;
    private final Map<NodeRef, Queue> queues = new HashMap<>();

    Outbox(BryanPeer peer) {
        this.peer = peer;
    }

    /** Sends {@code op} (one routed get, put or remove) to {@code target}, now or with the next batch. */
    CompletableFuture<Answer> send(NodeRef target, OpsBody.Op op, Duration timeout) {
        long now = peer.loop().nanoTime();
        var waiting = new Waiting(op, now, now + timeout.toNanos(), new CompletableFuture<>());
        ScheduledFuture<?> timer = peer.schedule(() -> waiting.answer.completeExceptionally(
                new DhtException(Reason.TIMEOUT, target + " did not answer within " + timeout)), timeout.toMillis());
        if (timer == null) {
            return CompletableFuture.failedFuture(new DhtException(Reason.CLOSED, peer.self() + " is closed"));
        }
        waiting.answer.whenComplete((a, e) -> timer.cancel(false));
        Queue queue = queues.computeIfAbsent(target, t -> new Queue(new SendWindow(peer.loop(), peer.settings().peerWindow(),
                peer.settings().batchLinger())));
        queue.waiting.add(waiting);
        sendNext(target, queue);
        return waiting.answer;
    }

    /** Sends what may leave now (see {@link SendWindow}). */
    private void sendNext(NodeRef target, Queue queue) {
        while (!queue.waiting.isEmpty() && queue.pipe.mayLeave(queue.waiting.size(), MOST_OPS,
                queue.waiting.peek().queuedNanos(), () -> sendNext(target, queue))) {
            List<Waiting> next = take(queue);
            if (!next.isEmpty()) {
                send(target, queue, next);
            }
        }
        if (queue.waiting.isEmpty() && queue.pipe.idle()) {
            queues.remove(target, queue);
        }
    }

    private void send(NodeRef target, Queue queue, List<Waiting> next) {
        queue.pipe.left();
        long latest = next.stream().mapToLong(Waiting::deadlineNanos).max().orElseThrow();
        Duration timeout = Duration.ofNanos(Math.max(1_000_000, latest - peer.loop().nanoTime()));
        CompletableFuture<List<Answer>> answers = next.size() == 1
                ? peer.send(target, alone(next.get(0).op), timeout).thenApply(List::of)
                : sendBatch(target, next, timeout);
        answers.whenComplete((each, failure) -> {
            queue.pipe.answered();
            for (int i = 0; i < next.size(); i++) {
                if (failure != null) {
                    next.get(i).answer.completeExceptionally(DhtException.from(failure));
                } else {
                    next.get(i).answer.complete(each.get(i));
                }
            }
            sendNext(target, queue);
        });
    }

    /**
     * The oldest waiting operations whose bodies fit one batch (at most {@link #MOST_OPS}; none when
     * every one left had passed its deadline, which are dropped here rather than searched for on
     * every send: that scan was a tenth of a busy peer loop).
     */
    private List<Waiting> take(Queue queue) {
        var taken = new ArrayList<Waiting>();
        int bytes = 0;
        int limit = peer.settings().copyBatchBytes();
        while (!queue.waiting.isEmpty() && taken.size() < MOST_OPS) {
            if (queue.waiting.peek().answer.isDone()) {
                queue.waiting.poll(); // its deadline passed while it waited
                continue;
            }
            int size = queue.waiting.peek().op.body().length + OVERHEAD_BYTES;
            if (!taken.isEmpty() && bytes + size > limit) {
                break;
            }
            taken.add(queue.waiting.poll());
            bytes += size;
        }
        return taken;
    }

    private CompletableFuture<List<Answer>> sendBatch(NodeRef target, List<Waiting> batch, Duration timeout) {
        peer.counters().increment("bryan.batches.out");
        peer.counters().add("bryan.batched.ops", batch.size());
        var ops = batch.stream().map(Waiting::op).toList();
        PeerRequest request = peer.request((int) peer.linkExpires(), List.of(), new OpHeader(OpHeader.Op.BATCH, null, -1),
                OpsBody.OPS_TYPE, OpsBody.encodeOps(ops));
        return peer.send(target, request, timeout).thenApply(answer -> split(answer, batch.size(), peer.settings().places()));
    }

    /** An operation that leaves without company: its own peer REGISTER, built only now. */
    private PeerRequest alone(OpsBody.Op op) {
        return peer.request((int) peer.linkExpires(), List.of(), op.op(), op.contentType(), op.body());
    }

    /** One answer per operation: each from the 200's body, or the batch's own when it was refused whole. */
    private static List<Answer> split(Answer answer, int count, int places) {
        if (answer.status() != 200) {
            return Collections.nCopies(count, answer);
        }
        List<OpsBody.Reply> replies;
        try {
            if (!answer.contentType().equals(OpsBody.ANSWERS_TYPE)) {
                throw new IllegalArgumentException("the answer's body is " + answer.contentType());
            }
            replies = OpsBody.decodeReplies(answer.body());
        } catch (IllegalArgumentException e) {
            throw new DhtException(Reason.UNREACHABLE, "an unreadable batch answer: " + e.getMessage());
        }
        if (replies.size() != count) {
            throw new DhtException(Reason.UNREACHABLE, replies.size() + " answers to a batch of " + count);
        }
        return replies.stream().map(r -> Answer.of(r, answer.responder(), places)).toList();
    }

    private record Waiting(OpsBody.Op op, long queuedNanos, long deadlineNanos, CompletableFuture<Answer> answer) {
    }

    /** The operations waiting for the next REGISTER to one peer, oldest first. */
    private static final class Queue {
        final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
        final SendWindow pipe;

        Queue(SendWindow pipe) {
            this.pipe = pipe;
        }
    }
}
