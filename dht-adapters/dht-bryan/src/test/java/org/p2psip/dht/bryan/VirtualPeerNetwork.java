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
import org.p2psip.dht.ring.Loop;
import org.p2psip.testkit.SimulatedTime;

/**
 * Peers on one {@link SimulatedTime} loop: REGISTERs travel as objects after a one-way delay fixed
 * per pair of addresses under a seed, so that a run is one ordering of events, repeated exactly,
 * and a test can look at every peer's state between two events. Not thread-safe: the test's
 * thread drives the time and runs every peer.
 */
final class VirtualPeerNetwork {

    private final SimulatedTime time = new SimulatedTime();
    private final Loop loop = new Loop(time, time::inEventLoop, time::nanos);
    private final Map<String, Link> links = new HashMap<>();
    private final long seed;

    /** @param seed fixes each pair's delay, between 10 and 60 ms */
    VirtualPeerNetwork(long seed) {
        this.seed = seed;
    }

    SimulatedTime time() {
        return time;
    }

    /** The loop every peer of this network runs on. */
    Loop loop() {
        return loop;
    }

    PeerLink link(String address) {
        var link = new Link(address);
        links.put(address, link);
        return link;
    }

    private long delayNanos(String from, String to) {
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

        /** Hands the request to its target (lost if none serves there) and its answer back after the same delay. */
        private void deliver(String target, PeerRequest request, CompletableFuture<PeerResponse> answer, long delay) {
            Link to = links.get(target);
            if (to == null || to.handler() == null) {
                return;
            }
            to.handler().handle(request).whenComplete((response, failure) -> time.schedule(() -> answer.complete(
                    failure == null ? response : PeerResponse.refusal(500, "Server Internal Error")),
                    delay, TimeUnit.NANOSECONDS));
        }
    }
}
