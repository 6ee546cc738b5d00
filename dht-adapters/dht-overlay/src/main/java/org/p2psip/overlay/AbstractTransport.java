package org.p2psip.overlay;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * What every transport shares: correlating answers with requests, the deadline on each request,
 * the in-flight bound, and turning a {@link Responder}'s result into a response or error frame.
 * A subclass only moves frames ({@link #send}).
 *
 * <p>Thread-safe: public methods may be called from any thread; all state is kept on
 * {@link #executor()}, so nothing here takes a lock.
 */
public abstract class AbstractTransport implements OverlayTransport {

    public static final String REQUESTS = "overlay.requests";
    public static final String ANSWERS = "overlay.answers";
    public static final String TIMEOUTS = "overlay.timeouts";
    public static final String UNREACHABLE = "overlay.unreachable";
    public static final String OVERLOADED = "overlay.overloaded";
    public static final String SERVED = "overlay.served";
    public static final String BAD_FRAMES = "overlay.bad-frames";
    /**
     * Batches refused because their MAC does not check under their connection's key and sequence
     * ({@link BatchReader}): replayed, reordered, spliced or altered on the way; none of their
     * frames is answered and the connection is closed.
     */
    public static final String REPLAYS_REFUSED = "overlay.replays-refused";

    protected final String address;
    protected final OverlaySettings settings;
    protected final Counters counters = new Counters();
    private final EventExecutor loop;
    private final Map<Long, Pending> pending = new HashMap<>();
    private long nextId = 1;
    private volatile Responder responder;
    private volatile boolean closed;

    /** A request awaiting its answer; {@code peer} lets a lost connection fail it early. */
    protected final class Pending {
        final long id;
        final String peer;
        final CompletableFuture<byte[]> answer = new CompletableFuture<>();
        ScheduledFuture<?> timeout;

        Pending(long id, String peer) {
            this.id = id;
            this.peer = peer;
        }

        /** Fails the request, if still pending, with {@code reason}. */
        public void fail(Reason reason, String message) {
            if (pending.remove(id) != null) {
                timeout.cancel(false);
                counters.increment(reason == Reason.OVERLOADED ? OVERLOADED : UNREACHABLE);
                answer.completeExceptionally(new DhtException(reason, message));
            }
        }
    }

    protected AbstractTransport(String address, OverlaySettings settings, EventExecutor loop) {
        this.address = address;
        this.settings = settings;
        this.loop = loop;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public EventExecutor executor() {
        return loop;
    }

    @Override
    public void serve(Responder responder) {
        this.responder = responder;
    }

    protected boolean isClosed() {
        return closed;
    }

    @Override
    public CompletionStage<byte[]> request(String peer, int type, byte[] payload, Duration deadline) {
        var result = new CompletableFuture<byte[]>();
        runOnLoop(() -> start(peer, type, payload, deadline).whenComplete((bytes, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(bytes);
            }
        }), result);
        return result;
    }

    private CompletableFuture<byte[]> start(String peer, int type, byte[] payload, Duration deadline) {
        if (closed) {
            return CompletableFuture.failedFuture(new DhtException(Reason.CLOSED, "transport of " + address + " is closed"));
        }
        if (pending.size() >= settings.maxInFlight()) {
            counters.increment(OVERLOADED);
            return CompletableFuture.failedFuture(new DhtException(Reason.OVERLOADED,
                    pending.size() + " requests in flight at " + address));
        }
        int frameBytes = FrameCodec.MIN_LENGTH + payload.length;
        if (frameBytes > settings.maxFrameBytes()) {
            counters.increment(OVERLOADED);
            return CompletableFuture.failedFuture(new DhtException(Reason.OVERLOADED,
                    "a payload of " + payload.length + " bytes exceeds the frame limit of " + settings.maxFrameBytes()));
        }
        counters.increment(REQUESTS);
        var request = new Pending(nextId++, peer);
        pending.put(request.id, request);
        request.timeout = loop.schedule(() -> expire(request, deadline), deadline.toMillis(), TimeUnit.MILLISECONDS);
        send(peer, new Frame(Frame.Kind.REQUEST, type, request.id, address, payload), request);
        return request.answer;
    }

    private void expire(Pending request, Duration deadline) {
        if (pending.remove(request.id) != null) {
            counters.increment(TIMEOUTS);
            request.answer.completeExceptionally(new DhtException(Reason.TIMEOUT,
                    "no answer from " + request.peer + " within " + deadline.toMillis() + " ms"));
        }
    }

    /**
     * Moves a request frame to {@code peer}; called on the loop. On a failure to send, call
     * {@code request.fail}; the deadline covers a frame that silently vanishes.
     */
    protected abstract void send(String peer, Frame frame, Pending request);

    /** Hands a response or error frame to the request it answers; called on the loop. */
    protected void answered(Frame frame) {
        Pending request = pending.remove(frame.requestId());
        if (request == null) {
            return; // its deadline passed, or an answer to nothing: ignore
        }
        request.timeout.cancel(false);
        counters.increment(ANSWERS);
        if (frame.kind() == Frame.Kind.RESPONSE) {
            request.answer.complete(frame.payload());
        } else {
            request.answer.completeExceptionally(ErrorPayload.decode(frame.sender(), frame.payload()));
        }
    }

    /** Fails, with UNREACHABLE, every pending request to {@code peer}: its connection is gone. */
    protected void lost(String peer, String why) {
        for (Pending request : new ArrayList<>(pending.values())) {
            if (request.peer.equals(peer)) {
                request.fail(Reason.UNREACHABLE, "lost " + peer + ": " + why);
            }
        }
    }

    /** Answers a request frame through the responder; {@code reply} sends the answer back. Called on the loop. */
    protected void serveRequest(Frame request, java.util.function.Consumer<Frame> reply) {
        counters.increment(SERVED);
        Responder current = responder;
        if (current == null || closed) {
            reply.accept(request.error(address, ErrorPayload.encode(Reason.UNREACHABLE, address + " is not serving")));
            return;
        }
        CompletionStage<byte[]> answer;
        try {
            answer = current.respond(request.sender(), request.type(), request.payload());
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((bytes, failure) -> {
            if (failure == null) {
                reply.accept(request.response(address, bytes));
            } else {
                reply.accept(request.error(address, ErrorPayload.of(failure)));
            }
        });
    }

    /** Marks the transport closed and fails everything in flight; called by subclasses' close. */
    protected void closePending() {
        closed = true;
        runOnLoop(() -> {
            for (Pending request : new ArrayList<>(pending.values())) {
                request.fail(Reason.CLOSED, "transport of " + address + " closed");
            }
        }, new CompletableFuture<>());
    }

    private void runOnLoop(Runnable task, CompletableFuture<?> orFail) {
        if (loop.inEventLoop()) {
            task.run();
            return;
        }
        try {
            loop.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            orFail.completeExceptionally(new DhtException(Reason.CLOSED, "transport of " + address + " is closed"));
        }
    }

    @Override
    public Map<String, Long> metrics() {
        return counters.snapshot(REQUESTS, ANSWERS, TIMEOUTS, UNREACHABLE, OVERLOADED, SERVED, BAD_FRAMES, REPLAYS_REFUSED);
    }

    /** The bytes of an error answer: reason:u8 then a UTF-8 message. */
    static final class ErrorPayload {
        private ErrorPayload() {
        }

        static byte[] of(Throwable failure) {
            DhtException d = DhtException.from(failure);
            return encode(d.reason(), d.getMessage());
        }

        static byte[] encode(Reason reason, String message) {
            byte[] text = String.valueOf(message).getBytes(StandardCharsets.UTF_8);
            byte[] bytes = new byte[1 + text.length];
            bytes[0] = (byte) reason.ordinal();
            System.arraycopy(text, 0, bytes, 1, text.length);
            return bytes;
        }

        static DhtException decode(String peer, byte[] bytes) {
            Reason[] reasons = Reason.values();
            Reason reason = bytes.length > 0 && bytes[0] >= 0 && bytes[0] < reasons.length ? reasons[bytes[0]] : Reason.UNREACHABLE;
            if (reason == Reason.CLOSED) {
                reason = Reason.UNREACHABLE; // the peer is closed; this node is not
            }
            String message = bytes.length > 1 ? new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8) : "";
            return new DhtException(reason, "peer " + peer + " answered: " + message);
        }
    }
}
