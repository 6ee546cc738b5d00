package org.p2psip.dht.bamboo.wire;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * What Bamboo needs from a node-to-node transport: send a request to an address and get a stage
 * of the answer, and answer requests arriving at an address. Every request has a deadline: the
 * stage fails with {@link org.p2psip.dht.DhtException} TIMEOUT after it, or UNREACHABLE when the
 * address refuses. Implementations are thread-safe and complete stages on their own threads;
 * a handler must not block.
 */
public interface Network {

    CompletionStage<Message> request(String address, Message request, Duration deadline);

    /** Starts answering requests at {@code address}. */
    void bind(String address, Handler handler);

    /** Stops answering at {@code address}: requests to it are refused from now on. */
    void unbind(String address);

    /**
     * Now, in nanoseconds, on the clock this network's deadlines run by: the machine's monotonic
     * clock, or a simulation's virtual one. Only differences between two readings mean anything.
     */
    long nanoTime();

    /** Answers one request; runs on a transport thread and must hand real work to the node's own loop. */
    interface Handler {
        CompletionStage<Message> handle(Message request);
    }
}
