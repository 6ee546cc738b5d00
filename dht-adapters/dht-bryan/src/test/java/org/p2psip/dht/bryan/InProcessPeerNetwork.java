package org.p2psip.dht.bryan;

import java.text.ParseException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * Many peers in one JVM, their REGISTERs and responses carried as SIP text printed and parsed by
 * JAIN-SIP ({@link JainSipText}). A message to an address nobody serves, or to a closed link, is
 * lost as a UDP datagram would be: the sender's deadline runs out.
 */
final class InProcessPeerNetwork implements AutoCloseable {

    private final Map<String, InProcessLink> links = new ConcurrentHashMap<>();
    private final ScheduledExecutorService wire = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "in-process-sip");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong cseq = new AtomicLong();
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> mostInFlight = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<PeerRequest>> captures = new ConcurrentHashMap<>();
    private volatile boolean cut;
    private volatile boolean copiesLost;
    private volatile long delayMillis;

    /** Every REGISTER reaches its target this much later, as from a far or busy peer. */
    void delay(Duration oneWay) {
        delayMillis = oneWay.toMillis();
    }

    /**
     * The most REGISTERs of a kind {@code from} had awaiting an answer from {@code to} at once so
     * far; kinds: "operations" (DHT-Op get, put, remove or batch) and "copies" (DHT-Op copy).
     */
    int mostInFlight(String from, String to, String kind) {
        AtomicInteger most = mostInFlight.get(from + " " + to + " " + kind);
        return most == null ? 0 : most.get();
    }

    private static String kind(PeerRequest request) {
        List<String> op = request.values(OpHeader.NAME);
        if (op.isEmpty()) {
            return "ring";
        }
        return switch (OpHeader.parse(op.get(0)).op()) {
            case GET, PUT, REMOVE, UPDATE, BATCH -> "operations";
            case COPY -> "copies";
            case FIND, HANDED -> "ring";
        };
    }

    /**
     * The next request {@code from} sends {@code to}, as the receiver read it, once the receiver
     * has answered it: what an eavesdropper on the wire would have captured.
     */
    CompletableFuture<PeerRequest> captureNext(String from, String to) {
        var captured = new CompletableFuture<PeerRequest>();
        captures.put(from + " " + to, captured);
        return captured;
    }

    /** While set, every copy REGISTER is lost (and nothing else), as if a replica had missed them. */
    void loseCopies(boolean lost) {
        copiesLost = lost;
    }

    /** While cut, every message is lost, as between two peers too overloaded to answer in time. */
    void cut(boolean lost) {
        cut = lost;
    }

    PeerLink link(String address) {
        var link = new InProcessLink(address);
        links.put(address, link);
        return link;
    }

    @Override
    public void close() {
        wire.shutdownNow();
    }

    private final class InProcessLink extends AbstractPeerLink {

        InProcessLink(String address) {
            super(address);
        }

        @Override
        public CompletionStage<PeerResponse> send(String target, PeerRequest request, Duration deadline) {
            var answer = new CompletableFuture<PeerResponse>();
            String kind = kind(request);
            String pair = address() + " " + target + " " + kind;
            int now = inFlight.computeIfAbsent(pair, p -> new AtomicInteger()).incrementAndGet();
            mostInFlight.computeIfAbsent(pair, p -> new AtomicInteger()).accumulateAndGet(now, Math::max);
            if (copiesLost && kind.equals("copies")) {
                return Deadlines.within(answer, target, deadline); // lost: the sender's deadline fails it
            }
            try {
                byte[] text = JainSipText.request(address(), target, request, cseq.incrementAndGet());
                wire.schedule(() -> deliver(target, text, answer), delayMillis, TimeUnit.MILLISECONDS);
            } catch (ParseException | java.util.concurrent.RejectedExecutionException e) {
                answer.completeExceptionally(new DhtException(Reason.UNREACHABLE, "cannot send: " + e, e));
            }
            CompletionStage<PeerResponse> bounded = Deadlines.within(answer, target, deadline);
            bounded.whenComplete((r, e) -> inFlight.get(pair).decrementAndGet());
            return bounded;
        }

        private void deliver(String target, byte[] text, CompletableFuture<PeerResponse> answer) {
            InProcessLink to = links.get(target);
            Handler handler = to == null ? null : to.handler();
            if (cut || isClosed() || handler == null) {
                return; // lost
            }
            try {
                PeerRequest request = JainSipText.readRequest(text);
                handler.handle(request).whenComplete((response, failure) -> {
                    CompletableFuture<PeerRequest> capture = captures.remove(address() + " " + target);
                    if (capture != null) {
                        capture.complete(request);
                    }
                    if (failure == null && !to.isClosed() && !isClosed()) {
                        try {
                            byte[] back = JainSipText.response(text, response);
                            wire.execute(() -> {
                                try {
                                    answer.complete(JainSipText.readResponse(back));
                                } catch (ParseException e) {
                                    answer.completeExceptionally(e);
                                }
                            });
                        } catch (ParseException | java.util.concurrent.RejectedExecutionException e) {
                            answer.completeExceptionally(e);
                        }
                    }
                });
            } catch (ParseException e) {
                answer.completeExceptionally(new DhtException(Reason.UNREACHABLE, "unparsable SIP: " + e));
            }
        }

        @Override
        public void close() {
            super.close();
            links.remove(address(), this);
        }
    }
}
