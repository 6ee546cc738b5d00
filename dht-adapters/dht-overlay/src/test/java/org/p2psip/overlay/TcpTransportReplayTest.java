package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * Replayed frames on real loopback sockets: frames a node really sent, captured off the wire by a
 * tap, delivered once and then sent again. The node under test runs on a clock the test moves.
 */
class TcpTransportReplayTest {

    private static final String SECRET = "replay-test-secret";
    private static final Duration WINDOW = OverlayOptions.REPLAY_WINDOW.defaultValue();
    private final FrameCodec codec = new FrameCodec(SECRET.getBytes(StandardCharsets.UTF_8));
    private final List<AutoCloseable> open = new ArrayList<>();
    private final AtomicInteger served = new AtomicInteger();
    private final SettableClock serverClock = SettableClock.now();
    private TcpTransport server;
    private TcpTransport client;

    @BeforeEach
    void start() {
        server = track(TcpTransport.bind("127.0.0.1:0", OverlaySettings.withSecret(SECRET), serverClock));
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

    /** The client's first {@code count} requests to a peer, as they crossed the wire to it. */
    private List<byte[]> captured(int count) throws IOException {
        List<byte[]> frames = new ArrayList<>();
        try (var tap = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            for (int i = 0; i < count; i++) {
                client.request("127.0.0.1:" + tap.getLocalPort(), 1, ("put-" + i).getBytes(StandardCharsets.UTF_8),
                        Duration.ofSeconds(10));
            }
            try (var wire = new RawPeer(tap.accept())) {
                for (int i = 0; i < count; i++) {
                    frames.add(wire.readFrame());
                }
            }
        }
        return frames;
    }

    /** Reads the next answer on {@code connection} and checks it answers {@code request}. */
    private void assertAnswered(RawPeer connection, byte[] request) throws IOException {
        Frame asked = RawPeer.decode(codec, request).frame();
        Frame answer = RawPeer.decode(codec, connection.readFrame()).frame();
        assertEquals(Frame.Kind.RESPONSE, answer.kind());
        assertEquals(asked.requestId(), answer.requestId(), "the answer to the request just sent, no other");
        assertArrayEquals(asked.payload(), answer.payload());
    }

    private void awaitCount(String counter, long count) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.metrics().getOrDefault(counter, 0L) < count) {
            assertTrue(System.nanoTime() < end, "expected " + counter + " " + count + ", got " + server.metrics());
            Thread.sleep(10); // polling a counter, not waiting a fixed time
        }
        assertEquals(count, server.metrics().get(counter), counter);
    }

    @Test
    void aFrameResentOnANewConnectionIsRefusedUnservedAndTheOriginalConnectionKeepsWorking() throws Exception {
        List<byte[]> frames = captured(2);
        try (var original = track(RawPeer.connect(server.address()))) {
            original.send(frames.get(0));
            assertAnswered(original, frames.get(0));
            try (var replayer = RawPeer.connect(server.address())) {
                replayer.send(frames.get(0));
                replayer.assertClosedByTheNode();
            }
            awaitCount(AbstractTransport.REPLAYS_REFUSED, 1);
            assertEquals(1, served.get(), "the replayed request must not reach the responder");
            original.send(frames.get(1));
            assertAnswered(original, frames.get(1));
            assertEquals(2, served.get());
        }
        assertEquals(0L, server.metrics().get(AbstractTransport.BAD_FRAMES), "a replay is not a bad frame");
    }

    @Test
    void aReplayOnATrustedConnectionIsDroppedUnansweredAndTheConnectionStaysOpen() throws Exception {
        List<byte[]> frames = captured(2);
        try (var connection = track(RawPeer.connect(server.address()))) {
            connection.send(frames.get(0));
            assertAnswered(connection, frames.get(0));
            connection.send(frames.get(0));
            connection.send(frames.get(1));
            assertAnswered(connection, frames.get(1)); // answers keep order: the replay got none
        }
        assertEquals(2, served.get());
        assertEquals(1L, server.metrics().get(AbstractTransport.REPLAYS_REFUSED));
    }

    @Test
    void aReplayAsTheFirstFrameOfANewConnectionClosesItAtOnce() throws Exception {
        byte[] frame = captured(1).get(0);
        try (var original = track(RawPeer.connect(server.address()))) {
            original.send(frame);
            assertAnswered(original, frame);
        }
        for (int i = 1; i <= 3; i++) {
            try (var replayer = RawPeer.connect(server.address())) {
                replayer.send(frame);
                replayer.assertClosedByTheNode();
            }
            awaitCount(AbstractTransport.REPLAYS_REFUSED, i);
        }
        assertEquals(1, served.get());
        assertEquals(0L, server.metrics().getOrDefault(Strangers.TIMED_OUT, 0L), "closed for the replay, not for silence");
        assertEquals(0L, server.metrics().get(AbstractTransport.BAD_FRAMES));
        assertArrayEquals(new byte[] {5}, client.request(server.address(), 1, new byte[] {5}, Duration.ofSeconds(5))
                .toCompletableFuture().get(10, TimeUnit.SECONDS), "the node still serves its peers");
    }

    @Test
    void aFrameSentOutsideTheWindowIsRefusedWhetherOldOrFromTheFuture() throws Exception {
        List<byte[]> frames = captured(2);
        serverClock.advance(WINDOW.plusSeconds(1)); // the frames are now older than the window
        try (var late = RawPeer.connect(server.address())) {
            late.send(frames.get(0));
            late.assertClosedByTheNode();
        }
        awaitCount(AbstractTransport.REPLAYS_REFUSED, 1);
        serverClock.advance(WINDOW.plusSeconds(1).multipliedBy(-2)); // now sent further ahead than the window
        try (var early = RawPeer.connect(server.address())) {
            early.send(frames.get(1));
            early.assertClosedByTheNode();
        }
        awaitCount(AbstractTransport.REPLAYS_REFUSED, 2);
        assertEquals(0, served.get(), "neither frame may be served");
    }

    @Test
    void aPeerWhoseClockIsOffByMoreThanTheWindowIsRefusedUntilItIsInStep() throws Exception {
        var skewed = SettableClock.now();
        skewed.advance(WINDOW.plusSeconds(1).negated());
        var late = track(TcpTransport.bind("127.0.0.1:0", OverlaySettings.withSecret(SECRET), skewed));
        var refused = assertThrows(ExecutionException.class, () -> late.request(server.address(), 1, new byte[] {1},
                Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertEquals(Reason.UNREACHABLE, assertInstanceOf(DhtException.class, refused.getCause()).reason(),
                "its first frame is refused and the connection closed under it");
        assertEquals(0, served.get());
        skewed.advance(WINDOW.plusSeconds(1));
        assertArrayEquals(new byte[] {2}, late.request(server.address(), 1, new byte[] {2}, Duration.ofSeconds(5))
                .toCompletableFuture().get(10, TimeUnit.SECONDS), "in step again, on a new connection");
    }

    @Test
    void framesOfManyConnectionsInterleavedBothWaysAreAllAccepted() throws Exception {
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
        for (TcpTransport peer : peers) {
            assertEquals(0L, peer.metrics().get(AbstractTransport.REPLAYS_REFUSED), peer.address());
        }
    }
}
