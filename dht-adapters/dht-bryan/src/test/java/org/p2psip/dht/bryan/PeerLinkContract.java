package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * What every {@link PeerLink} does, whatever carries the REGISTERs. A link's test extends this
 * class and says how a link is made ({@link #link}) and, if its transport cannot tell a peer that
 * is not there from a silent one, {@link #nobodyThere}. The contract is the interface's: a request
 * reaches the served handler and its response comes back with every part the overlay reads
 * intact, the target place's Peer-ID too; every request completes, at the latest at its deadline; a closed link serves nothing.
 */
public abstract class PeerLinkContract {

    private static final Duration PATIENCE = Duration.ofSeconds(5);
    private static final Duration SHORT = Duration.ofMillis(300);

    private final List<PeerLink> links = new ArrayList<>();

    /**
     * A new link, reachable by the other links the test made; its address is the implementation's
     * choice. The contract closes it after the test.
     */
    protected abstract PeerLink link();

    /**
     * How a request to an address no link serves fails: UNREACHABLE where the link can tell at once
     * (a refused connection), TIMEOUT at the deadline where it cannot (a datagram nobody reads).
     */
    protected Reason nobodyThere() {
        return Reason.UNREACHABLE;
    }

    private PeerLink made() {
        PeerLink link = link();
        links.add(link);
        return link;
    }

    @AfterEach
    void closeLinks() {
        for (int i = links.size() - 1; i >= 0; i--) {
            links.get(i).close();
        }
    }

    /** A plain peer REGISTER from {@code from}: its peer URI and DHT-PeerID, no body. */
    private static PeerRequest register(PeerLink from) {
        NodeRef self = NodeRef.at(from.address());
        var peerId = new PeerHeader(PeerIdHeader.NAME, new PeerIdHeader(self, "contract", 600).print());
        return new PeerRequest(PeerUri.print(self), 600, List.of(peerId), "", new byte[0]);
    }

    /** Every byte value, line ends and NULs included: the records bodies are binary. */
    private static byte[] everyByte() {
        byte[] body = new byte[256];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) i;
        }
        return body;
    }

    private static DhtException failure(CompletionStage<?> stage) {
        var thrown = assertThrows(ExecutionException.class,
                () -> stage.toCompletableFuture().get(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS));
        return assertInstanceOf(DhtException.class, thrown.getCause(), "a request fails with a DhtException");
    }

    /** Each header name's values, in order, as the overlay reads them ({@link PeerRequest#values}). */
    private static void assertSameHeaders(List<PeerHeader> sent, List<PeerHeader> received) {
        for (PeerHeader header : sent) {
            assertEquals(sent.stream().filter(h -> h.name().equalsIgnoreCase(header.name())).flatMap(PeerHeader::parts).toList(),
                    received.stream().filter(h -> h.name().equalsIgnoreCase(header.name())).flatMap(PeerHeader::parts).toList(),
                    header.name());
        }
    }

    @Test
    void aRequestReachesTheServedHandlerAndItsResponseComesBackIntact() throws Exception {
        PeerLink asker = made();
        PeerLink answerer = made();
        NodeRef from = NodeRef.at(asker.address());
        NodeRef next = NodeRef.at("127.0.0.1:25399");
        var sent = new PeerRequest(PeerUri.print(from), 600, List.of(
                new PeerHeader(PeerIdHeader.NAME, new PeerIdHeader(from, "contract", 600).print()),
                new PeerHeader(LinkHeader.NAME, new LinkHeader(next, LinkHeader.Kind.S, 1, 600).print()),
                new PeerHeader(LinkHeader.NAME, new LinkHeader(next, LinkHeader.Kind.F, 159, 600).print()),
                new PeerHeader(OpHeader.NAME, new OpHeader(OpHeader.Op.PUT, Id.hash("sip:alice@example.com"), 7).print())),
                RecordsBody.SET_TYPE, everyByte(), org.p2psip.dht.ring.VirtualNodes.id(answerer.address(), 5).toString());
        var answer = new PeerResponse(302, "Moved Temporarily", PeerUri.print(next), List.of(
                new PeerHeader(PeerIdHeader.NAME, new PeerIdHeader(NodeRef.at(answerer.address()), "contract", 600).print()),
                new PeerHeader(LinkHeader.NAME, new LinkHeader(from, LinkHeader.Kind.P, 0, 600).print())),
                RecordsBody.TYPE, everyByte());
        var handed = new CompletableFuture<PeerRequest>();
        answerer.serve(request -> {
            handed.complete(request);
            return CompletableFuture.completedFuture(answer);
        });

        PeerResponse came = asker.send(answerer.address(), sent, PATIENCE).toCompletableFuture()
                .get(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS);

        PeerRequest received = handed.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertEquals(sent.peerUri(), received.peerUri());
        assertEquals(sent.target(), received.target(), "the target place's Peer-ID");
        assertEquals(sent.expires(), received.expires());
        assertSameHeaders(sent.headers(), received.headers());
        assertEquals(sent.contentType(), received.contentType());
        assertArrayEquals(sent.body(), received.body(), "the request's body");
        assertEquals(answer.status(), came.status());
        assertEquals(answer.reason(), came.reason());
        assertEquals(answer.contact(), came.contact());
        assertSameHeaders(answer.headers(), came.headers());
        assertEquals(answer.contentType(), came.contentType());
        assertArrayEquals(answer.body(), came.body(), "the response's body");
    }

    @Test
    void aPeerThatNeverAnswersFailsTheRequestWithTimeoutAtItsDeadline() {
        PeerLink asker = made();
        PeerLink hung = made();
        hung.serve(request -> new CompletableFuture<>());
        assertEquals(Reason.TIMEOUT, failure(asker.send(hung.address(), register(asker), SHORT)).reason());
    }

    @Test
    void aClosedLinkServesNothingAndARequestToItFailsAsTheLinkCanTell() {
        PeerLink asker = made();
        PeerLink gone = made();
        var served = new AtomicInteger();
        gone.serve(request -> {
            served.incrementAndGet();
            return CompletableFuture.completedFuture(PeerResponse.refusal(500, "served after close"));
        });
        gone.close();
        // where the link can tell, a deadline far beyond the test's patience: only a refusal ends it in time
        Duration deadline = nobodyThere() == Reason.TIMEOUT ? SHORT : Duration.ofMinutes(1);
        assertEquals(nobodyThere(), failure(asker.send(gone.address(), register(asker), deadline)).reason());
        assertEquals(0, served.get(), "requests handed to a closed link's handler");
    }
}
