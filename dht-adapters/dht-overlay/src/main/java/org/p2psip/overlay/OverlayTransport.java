package org.p2psip.overlay;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import io.netty.util.concurrent.EventExecutor;
import org.p2psip.dht.Counters;

/**
 * How one node exchanges request/response messages with its peers. The payloads are opaque: the
 * routing layer (Chord, Bamboo) defines its message types and their bytes.
 *
 * <p>Thread-safe. Each transport runs on one event loop ({@link #executor()}); answers complete
 * and the {@link Responder} runs there, so a routing layer that keeps its state on that loop
 * needs no locks.
 *
 * <p>Every request completes: with the peer's answer, or with a
 * {@link org.p2psip.dht.DhtException} whose reason is TIMEOUT (no answer before the deadline),
 * UNREACHABLE (no connection, or the peer answered with an error), OVERLOADED (too much in flight
 * or queued: refused at once) or CLOSED.
 */
public interface OverlayTransport extends AutoCloseable {

    /** This node's overlay address (host:port), as peers reach it and as frames name it. */
    String address();

    /** The one event loop the transport runs on. */
    EventExecutor executor();

    /**
     * Now, in nanoseconds, on the clock {@link #executor()} schedules by: the machine's monotonic
     * clock, or a simulation's virtual one. Only differences between two readings mean anything.
     */
    default long nanoTime() {
        return System.nanoTime();
    }

    /** Sets who answers requests; until it is set, requests are answered with an error. */
    void serve(Responder responder);

    /** Sends a request of {@code type} to {@code peer}; completes with the answer's payload. */
    CompletionStage<byte[]> request(String peer, int type, byte[] payload, Duration deadline);

    /** Counters: requests, answers, timeouts, refusals, bad frames. */
    Map<String, Long> metrics();

    /** Fails whatever is in flight with CLOSED, closes connections and stops the event loop. */
    @Override
    void close();
}
