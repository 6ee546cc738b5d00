package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replayed, reordered, spliced and altered batches on real loopback sockets: batches a node really
 * sent, captured by a tap, and batches made by hand by an insider holding the secret, sent where
 * they do not belong. Every one is refused, unserved, and its connection closed; the node keeps
 * serving its peers. And the other way: frames written together travel as one batch, and many
 * connections both ways all pass.
 */
class TcpTransportReplayTest {

    private static final String SECRET = "replay-test-secret";
    private static final String INSIDER = "127.0.0.1:1";
    private final List<AutoCloseable> open = new ArrayList<>();
    private final AtomicInteger served = new AtomicInteger();
    private TcpTransport server;
    private TcpTransport client;

    @BeforeEach
    void start() {
        server = track(TcpTransport.bind("127.0.0.1:0", OverlaySettings.withSecret(SECRET)));
        server.serve((sender, type, payload) -> {
            served.incrementAndGet();
            return CompletableFuture.completedFuture(payload);
        });
        client = track(TcpTransport.bind("127.0.0.1:0", OverlaySettings.withSecret(SECRET)));
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T closeable) {
        open.add(closeable);
        return closeable;
    }

    private static Frame request(long id, String payload) {
        return new Frame(Frame.Kind.REQUEST, 1, id, "", RawPeer.bytes(payload));
    }

    /** An insider's new connection to the server, its handshake done. */
    private RawPeer insider() throws IOException {
        RawPeer peer = track(RawPeer.connect(server.address())).open(SECRET, INSIDER);
        peer.expectProof();
        return peer;
    }

    /** Reads the server's next batch and checks it answers exactly {@code requests}, in order. */
    private static void assertAnswered(RawPeer connection, Frame... requests) throws IOException {
        List<Frame> answers = connection.readBatch();
        assertEquals(requests.length, answers.size(), "one answer per request, in one batch");
        for (int i = 0; i < requests.length; i++) {
            assertEquals(Frame.Kind.RESPONSE, answers.get(i).kind());
            assertEquals(requests[i].requestId(), answers.get(i).requestId());
            assertArrayEquals(requests[i].payload(), answers.get(i).payload());
        }
    }

    private void awaitCount(TcpTransport node, String counter, long count) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (node.metrics().getOrDefault(counter, 0L) < count) {
            assertTrue(System.nanoTime() < end, "expected " + counter + " " + count + ", got " + node.metrics());
            Thread.sleep(10); // polling a counter, not waiting a fixed time
        }
        assertEquals(count, node.metrics().get(counter), counter);
    }

    private void assertStillServes() throws Exception {
        assertArrayEquals(new byte[] {5}, client.request(server.address(), 1, new byte[] {5}, Duration.ofSeconds(5))
                .toCompletableFuture().get(10, TimeUnit.SECONDS), "the node still serves its peers");
    }

    /**
     * A tap that did the acceptor's side of the handshake (with the secret) for a connection the
     * client opened to it to send a request; the client's batch is next to read from it.
     */
    private RawPeer tapOfARequest() throws IOException {
        try (var listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            client.request("127.0.0.1:" + listening.getLocalPort(), 1, RawPeer.bytes("put"), Duration.ofSeconds(10));
            RawPeer tap = track(RawPeer.accept(listening));
            tap.accept(SECRET);
            return tap;
        }
    }

    @Test
    void aConnectionCapturedOffTheWireAndSentAgainFailsItsHandshakeUnserved() throws Exception {
        RawPeer tap = tapOfARequest();
        tap.readBatchBytes();
        byte[] captured = tap.received();
        try (var replayer = RawPeer.connect(server.address())) {
            replayer.send(captured); // its hello, its proof for the tap's nonce, its batch
            replayer.readHello(); // the server's, with a nonce of its own: the captured proof was for another
            replayer.assertClosedByTheNode();
        }
        awaitCount(server, TcpTransport.HANDSHAKES_REFUSED, 1);
        assertEquals(0, served.get(), "the captured request must not reach the responder");
        assertEquals(0L, server.metrics().get(AbstractTransport.BAD_FRAMES), "a replay is not malformed");
        assertStillServes();
    }

    @Test
    void aCapturedBatchSentOnAnotherConnectionEvenAnInsidersIsRefusedUnserved() throws Exception {
        byte[] batch = tapOfARequest().readBatchBytes();
        RawPeer insider = insider();
        insider.send(batch); // the first batch of this connection too, but under the other connection's key
        insider.assertClosedByTheNode();
        awaitCount(server, AbstractTransport.REPLAYS_REFUSED, 1);
        assertEquals(0, served.get());
        assertStillServes();
    }

    @Test
    void aBatchReplayedOnItsOwnConnectionIsRefusedAndTheConnectionClosed() throws Exception {
        RawPeer insider = insider();
        Frame first = request(1, "once");
        byte[] batch = insider.batch(first);
        insider.send(batch);
        assertAnswered(insider, first);
        insider.send(batch);
        insider.assertClosedByTheNode();
        awaitCount(server, AbstractTransport.REPLAYS_REFUSED, 1);
        assertEquals(1, served.get(), "served once, the first time");
        assertStillServes();
    }

    @Test
    void aBatchOutOfOrderOrAfterADroppedOneIsRefusedUnserved() throws Exception {
        RawPeer insider = insider();
        byte[] first = insider.batch(request(1, "first"));
        byte[] second = insider.batch(request(2, "second"));
        insider.send(second); // as if the first had been dropped, or the two swapped
        insider.send(first);
        insider.assertClosedByTheNode();
        awaitCount(server, AbstractTransport.REPLAYS_REFUSED, 1);
        assertEquals(0, served.get());
    }

    @Test
    void aBatchWithAFlippedByteIsRefusedUnserved() throws Exception {
        for (int flip : new int[] {10, -1}) { // a byte of a frame's header, the MAC's last
            RawPeer insider = insider();
            byte[] batch = insider.batch(request(1, "payload"));
            int at = flip >= 0 ? flip : batch.length + flip;
            batch[at] ^= 1;
            insider.send(batch);
            insider.assertClosedByTheNode();
        }
        awaitCount(server, AbstractTransport.REPLAYS_REFUSED, 2);
        assertEquals(0, served.get());
    }

    @Test
    void aMalformedFrameInAnAuthenticBatchGetsNoneOfTheBatchServed() throws Exception {
        Frame good = request(1, "good");
        byte[] frames = RawPeer.frames(good, request(2, "unknown kind"));
        frames[FrameCodec.size(good) + 4] = 9; // the second frame's kind
        RawPeer insider = insider();
        insider.send(insider.seal(frames));
        insider.assertClosedByTheNode();
        awaitCount(server, AbstractTransport.BAD_FRAMES, 1);
        assertEquals(0, served.get(), "the good frame before it is not served either");
        assertEquals(0L, server.metrics().get(AbstractTransport.REPLAYS_REFUSED), "its MAC checked");
        assertStillServes();
    }

    @Test
    void requestsWrittenInOneTurnOfTheLoopTravelAsOneBatchAndAreAllServed() throws Exception {
        for (int round = 1; round <= 2; round++) { // the first opens the connection, the second finds it open
            var answers = CompletableFuture.supplyAsync(() -> {
                List<CompletableFuture<byte[]>> asked = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    asked.add(client.request(server.address(), 1, new byte[] {(byte) i}, Duration.ofSeconds(10))
                            .toCompletableFuture());
                }
                return asked;
            }, client.executor()).get(10, TimeUnit.SECONDS);
            for (int i = 0; i < answers.size(); i++) {
                assertArrayEquals(new byte[] {(byte) i}, answers.get(i).get(10, TimeUnit.SECONDS));
            }
            assertEquals(100L * round, served.get());
            assertEquals((long) round, server.metrics().get(TcpTransport.BATCHES_RECEIVED), "one MAC checked for 100 requests");
            assertEquals((long) round, client.metrics().get(TcpTransport.BATCHES_SENT), "one MAC made for 100 requests");
            assertEquals((long) round, client.metrics().get(TcpTransport.BATCHES_RECEIVED), "and one for their answers");
        }
    }

    @Test
    void aFlushBeyondTheBatchBoundIsSplitAndAFrameLargerThanItTravelsAlone() throws Exception {
        await(client.request(server.address(), 1, new byte[0], Duration.ofSeconds(10))); // opens the connection
        int[] sizes = {BatchWriter.BATCH_BYTES / 2, BatchWriter.BATCH_BYTES / 2, 3 * BatchWriter.BATCH_BYTES, 10, 10};
        var answers = CompletableFuture.supplyAsync(() -> {
            List<CompletableFuture<byte[]>> asked = new ArrayList<>();
            for (int size : sizes) {
                asked.add(client.request(server.address(), 1, new byte[size], Duration.ofSeconds(10)).toCompletableFuture());
            }
            return asked;
        }, client.executor()).get(10, TimeUnit.SECONDS);
        for (int i = 0; i < sizes.length; i++) {
            assertEquals(sizes[i], await(answers.get(i)).length);
        }
        // half, then half again would pass the bound: two batches; the large one alone; the two small ones together
        assertEquals(1L + 4, client.metrics().get(TcpTransport.BATCHES_SENT));
        assertEquals(1L + 4, server.metrics().get(TcpTransport.BATCHES_RECEIVED));
        assertEquals(0L, server.metrics().get(AbstractTransport.BAD_FRAMES));
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void requestsOfManyConnectionsInterleavedBothWaysAreAllAnswered() throws Exception {
        List<TcpTransport> peers = new ArrayList<>();
        List<CompletionStage<byte[]>> answers = new ArrayList<>();
        for (int p = 0; p < 12; p++) {
            var peer = track(TcpTransport.bind("127.0.0.1:0", OverlaySettings.withSecret(SECRET)));
            peer.serve((sender, type, payload) -> CompletableFuture.completedFuture(payload));
            peers.add(peer);
        }
        for (int i = 0; i < 30; i++) {
            for (TcpTransport peer : peers) {
                answers.add(peer.request(server.address(), 1, new byte[] {(byte) i}, Duration.ofSeconds(10)));
                answers.add(server.request(peer.address(), 1, new byte[] {(byte) i}, Duration.ofSeconds(10)));
            }
        }
        for (int i = 0; i < answers.size(); i++) {
            byte[] answer = answers.get(i).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals((byte) (i / (2 * peers.size())), answer[0], "answer " + i);
        }
        assertEquals(0L, server.metrics().get(AbstractTransport.REPLAYS_REFUSED));
        assertEquals(24L, server.metrics().get(TcpTransport.HANDSHAKES), "12 connections each way");
        for (TcpTransport peer : peers) {
            assertEquals(0L, peer.metrics().get(AbstractTransport.REPLAYS_REFUSED), peer.address());
            assertEquals(0L, peer.metrics().get(TcpTransport.HANDSHAKES_REFUSED), peer.address());
        }
    }
}
