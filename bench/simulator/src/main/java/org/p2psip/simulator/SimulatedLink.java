package org.p2psip.simulator;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.bryan.AbstractPeerLink;
import org.p2psip.dht.bryan.PeerHeader;
import org.p2psip.dht.bryan.PeerRequest;
import org.p2psip.dht.bryan.PeerResponse;
import org.p2psip.testkit.SimulatedTime;

/**
 * A Bryan peer's link in the simulation: REGISTERs and their responses travel as objects, after
 * the pair's latency, on the simulation's loop. Printing them as SIP text (as the container does)
 * would only cost time; their size on the wire is counted as that text would be: the request or
 * status line, the DHT headers and body, the headers every SIP message carries (Via, From, To,
 * Call-ID, CSeq, Max-Forwards, Contact, Expires, Content-Type, Content-Length: about 300 bytes),
 * and UDP/IP's 28. A message to a peer that is gone is lost, as a datagram is: the deadline fails it.
 */
final class SimulatedLink extends AbstractPeerLink {

    private static final int SIP_HEADERS_BYTES = 300;
    private static final int UDP_IP_BYTES = 28;

    private final SimulatedTime time;
    private final Latencies latencies;
    private final Map<String, SimulatedLink> links;
    private final LongAdder sent;

    SimulatedLink(String address, SimulatedTime time, Latencies latencies, Map<String, SimulatedLink> links,
                  LongAdder sent) {
        super(address);
        this.time = time;
        this.latencies = latencies;
        this.links = links;
        this.sent = sent;
    }

    @Override
    public CompletionStage<PeerResponse> send(String target, PeerRequest request, Duration deadline) {
        var answer = new CompletableFuture<PeerResponse>();
        if (isClosed()) {
            answer.completeExceptionally(new DhtException(Reason.CLOSED, address() + " is closed"));
            return answer;
        }
        sent.add(size(request));
        time.schedule(() -> deliver(target, request, answer), latencies.nanos(address(), target), TimeUnit.NANOSECONDS);
        ScheduledFuture<?> timer = time.schedule(() -> answer.completeExceptionally(
                new DhtException(Reason.TIMEOUT, target + " did not answer within " + deadline)),
                deadline.toNanos(), TimeUnit.NANOSECONDS);
        answer.whenComplete((response, failure) -> timer.cancel(false));
        return answer;
    }

    private void deliver(String target, PeerRequest request, CompletableFuture<PeerResponse> answer) {
        SimulatedLink to = links.get(target);
        if (to == null || to.isClosed() || to.handler() == null) {
            return; // lost
        }
        to.handler().handle(request).whenComplete((response, failure) -> {
            PeerResponse sentBack = failure == null ? response : PeerResponse.refusal(500, "Server Internal Error");
            sent.add(size(sentBack));
            time.schedule(() -> {
                if (!isClosed()) {
                    answer.complete(sentBack);
                }
            }, latencies.nanos(target, address()), TimeUnit.NANOSECONDS);
        });
    }

    @Override
    public void close() {
        super.close();
        links.remove(address(), this);
    }

    static long size(PeerRequest request) {
        return "REGISTER ".length() + request.peerUri().length() + " SIP/2.0\r\n".length()
                + headers(request.headers()) + request.body().length + SIP_HEADERS_BYTES + UDP_IP_BYTES;
    }

    static long size(PeerResponse response) {
        return "SIP/2.0 200 \r\n".length() + response.reason().length()
                + (response.contact() == null ? 0 : response.contact().length() + 11)
                + headers(response.headers()) + response.body().length + SIP_HEADERS_BYTES + UDP_IP_BYTES;
    }

    private static long headers(Iterable<PeerHeader> headers) {
        long bytes = 0;
        for (PeerHeader header : headers) {
            bytes += header.name().getBytes(StandardCharsets.UTF_8).length
                    + header.value().getBytes(StandardCharsets.UTF_8).length + 4;
        }
        return bytes;
    }
}
