package org.p2psip.dht.bryan;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.NodeThread;
import org.p2psip.testkit.SimulatedTime;

/**
 * Peers on one {@link SimulatedTime} loop: REGISTERs travel as objects after a one-way delay fixed
 * per pair of addresses under a seed (or, on a {@link #loaded} network, drawn anew for each
 * message), so that a run is one ordering of events, repeated exactly, and a test can look at
 * every peer's state between two events. Not thread-safe: the test's thread drives the time and
 * runs every peer.
 */
final class VirtualPeerNetwork {

    private final SimulatedTime time = new SimulatedTime();
    private final NodeThread loop = new NodeThread(time, time::inEventLoop, time::nanos);
    private final Map<String, Link> links = new HashMap<>();
    private final long seed;
    /** Draws each message's delay on a loaded network; null: one delay per pair. */
    private final SplittableRandom perMessage;
    private final int slowestMillis;

    /** @param seed fixes each pair's delay, between 10 and 60 ms */
    VirtualPeerNetwork(long seed) {
        this(seed, null, 60);
    }

    private VirtualPeerNetwork(long seed, SplittableRandom perMessage, int slowestMillis) {
        this.seed = seed;
        this.perMessage = perMessage;
        this.slowestMillis = slowestMillis;
    }

    /**
     * A network as a loaded machine's: each message, request or answer, takes between 10 ms and
     * {@code slowestMillis}, drawn under {@code seed}, so that some answers come after the request
     * deadline (the request counts as lost, what it asked for is done all the same).
     */
    static VirtualPeerNetwork loaded(long seed, int slowestMillis) {
        return new VirtualPeerNetwork(seed, new SplittableRandom(seed), slowestMillis);
    }

    SimulatedTime time() {
        return time;
    }

    /** The loop every peer of this network runs on. */
    NodeThread loop() {
        return loop;
    }

    PeerLink link(String address) {
        var link = new Link(address);
        links.put(address, link);
        return link;
    }

    private long delayNanos(String from, String to) {
        if (perMessage != null) {
            return TimeUnit.MILLISECONDS.toNanos(10 + perMessage.nextInt(slowestMillis - 10));
        }
        long pair = from.compareTo(to) < 0 ? (from + to).hashCode() : (to + from).hashCode();
        return TimeUnit.MILLISECONDS.toNanos(10 + new SplittableRandom(seed ^ pair).nextInt(50));
    }

    private final class Link extends AbstractPeerLink {

        Link(String address) {
            super(address);
        }

        @Override
        public CompletionStage<PeerResponse> send(String target, PeerRequest request, Duration deadline) {
            var answer = new CompletableFuture<PeerResponse>();
            long delay = delayNanos(address(), target);
            time.schedule(() -> deliver(target, request, answer, delay), delay, TimeUnit.NANOSECONDS);
            ScheduledFuture<?> timer = time.schedule(() -> answer.completeExceptionally(
                    new DhtException(Reason.TIMEOUT, target + " did not answer within " + deadline)),
                    deadline.toNanos(), TimeUnit.NANOSECONDS);
            answer.whenComplete((response, failure) -> timer.cancel(false));
            return answer;
        }

        /** Hands the request to its target (lost if none serves there) and its answer back after the same delay (a loaded network draws one). */
        private void deliver(String target, PeerRequest request, CompletableFuture<PeerResponse> answer, long delay) {
            Link to = links.get(target);
            if (to == null || to.handler() == null) {
                return;
            }
            long back = perMessage == null ? delay : delayNanos(target, address());
            to.handler().handle(request).whenComplete((response, failure) -> time.schedule(() -> answer.complete(
                    failure == null ? response : PeerResponse.refusal(500, "Server Internal Error")),
                    back, TimeUnit.NANOSECONDS));
        }
    }
}
