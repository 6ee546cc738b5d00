package org.p2psip.dht.bryan;

import java.text.ParseException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
    private final ExecutorService wire = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "in-process-sip");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong cseq = new AtomicLong();
    private volatile boolean cut;

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
            try {
                byte[] text = JainSipText.request(address(), target, request, cseq.incrementAndGet());
                wire.execute(() -> deliver(target, text, answer));
            } catch (ParseException | java.util.concurrent.RejectedExecutionException e) {
                answer.completeExceptionally(new DhtException(Reason.UNREACHABLE, "cannot send: " + e, e));
            }
            return Deadlines.within(answer, target, deadline);
        }

        private void deliver(String target, byte[] text, CompletableFuture<PeerResponse> answer) {
            InProcessLink to = links.get(target);
            Handler handler = to == null ? null : to.handler();
            if (cut || isClosed() || handler == null) {
                return; // lost
            }
            try {
                handler.handle(JainSipText.readRequest(text)).whenComplete((response, failure) -> {
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
