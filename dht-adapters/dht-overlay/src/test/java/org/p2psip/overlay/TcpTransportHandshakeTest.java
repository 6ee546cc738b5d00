package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufUtil;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * The connection handshake on real loopback sockets: a peer that cannot prove it holds the secret,
 * whether it opened the connection or accepted it, is refused, counted, and never served; one that
 * can is no stranger any more.
 */
class TcpTransportHandshakeTest {

    private static final String SECRET = "handshake-test-secret";
    private final List<AutoCloseable> open = new ArrayList<>();
    private final AtomicInteger served = new AtomicInteger();

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

    /** A node with {@code secret} that echoes and counts what it serves. */
    private TcpTransport node(String secret) {
        var node = track(TcpTransport.bind("127.0.0.1:0", OverlaySettings.withSecret(secret)));
        node.serve((sender, type, payload) -> {
            served.incrementAndGet();
            return CompletableFuture.completedFuture(payload);
        });
        return node;
    }

    private static DhtException failure(CompletionStage<?> stage) {
        var thrown = assertThrows(ExecutionException.class, () -> stage.toCompletableFuture().get(10, TimeUnit.SECONDS));
        return assertInstanceOf(DhtException.class, thrown.getCause());
    }

    private static void awaitCount(TcpTransport node, String counter, long count) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (node.metrics().getOrDefault(counter, 0L) < count) {
            assertTrue(System.nanoTime() < end, "expected " + counter + " " + count + ", got " + node.metrics());
            Thread.sleep(10); // polling a counter, not waiting a fixed time
        }
        assertEquals(count, node.metrics().get(counter), counter);
    }

    @Test
    void nodesWithDifferentSecretsRefuseEachOtherEitherWayNothingServed() throws Exception {
        var ours = node(SECRET);
        var theirs = node("another-secret");
        assertEquals(Reason.UNREACHABLE, failure(theirs.request(ours.address(), 1, new byte[] {1}, Duration.ofSeconds(5))).reason());
        awaitCount(ours, TcpTransport.HANDSHAKES_REFUSED, 1);
        assertEquals(Reason.UNREACHABLE, failure(ours.request(theirs.address(), 1, new byte[] {2}, Duration.ofSeconds(5))).reason());
        awaitCount(theirs, TcpTransport.HANDSHAKES_REFUSED, 1);
        assertEquals(0, served.get());
        assertEquals(0L, ours.metrics().get(TcpTransport.HANDSHAKES));
    }

    @Test
    void anOpenerRefusesAnAcceptorWhoseProofIsWrongAndSendsItNoMore() throws Exception {
        var ours = node(SECRET);
        try (var listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            var asked = ours.request("127.0.0.1:" + listening.getLocalPort(), 1, new byte[] {1}, Duration.ofSeconds(5));
            try (var impostor = RawPeer.accept(listening)) {
                impostor.accept("not-the-secret"); // reads the opener's proof, sends one made with its own secret
                impostor.readBatchBytes(); // the request, sent right behind the opener's proof
                impostor.assertClosedByTheNode();
            }
            assertEquals(Reason.UNREACHABLE, failure(asked).reason());
        }
        awaitCount(ours, TcpTransport.HANDSHAKES_REFUSED, 1);
    }

    @Test
    void aWrongProofOrGarbageInItsPlaceIsRefusedUnserved() throws Exception {
        var ours = node(SECRET);
        try (var outsider = RawPeer.connect(ours.address())) {
            outsider.open("not-the-secret", "127.0.0.1:1");
            outsider.assertClosedByTheNode();
        }
        awaitCount(ours, TcpTransport.HANDSHAKES_REFUSED, 1);
        try (var garbage = RawPeer.connect(ours.address())) {
            garbage.send(ByteBufUtil.getBytes(Handshake.hello(ConnectionKeys.nonce(), "127.0.0.1:1")));
            garbage.readHello();
            garbage.send(RawPeer.bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(2)));
            garbage.assertClosedByTheNode();
        }
        awaitCount(ours, TcpTransport.HANDSHAKES_REFUSED, 2);
        assertEquals(0, served.get());
    }

    @Test
    void aNodeOfVersionTwoIsRefusedAsAnUnknownVersion() throws Exception {
        var ours = node(SECRET);
        // what a version 2 node sends first: a frame, length then version 2, the rest its header and MAC
        byte[] frame = new byte[4 + 90];
        frame[3] = 90;
        frame[4] = 2;
        try (var old = RawPeer.connect(ours.address())) {
            old.send(frame);
            old.assertClosedByTheNode();
        }
        awaitCount(ours, AbstractTransport.BAD_FRAMES, 1);
        assertEquals(0L, ours.metrics().get(TcpTransport.HANDSHAKES));
    }

    @Test
    void anAcceptorSilentPastThePatienceIsClosedByTheOpener() throws Exception {
        // a patience shorter than the default: the test waits it out
        var ours = track(TcpTransport.bind("127.0.0.1:0", OverlaySettings.from(Config.empty()
                .with(NodeOptions.OVERLAY_SECRET.name(), SECRET).with(OverlayOptions.HANDSHAKE_PATIENCE.name(), "1s"))));
        try (var listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            var asked = ours.request("127.0.0.1:" + listening.getLocalPort(), 1, new byte[] {1}, Duration.ofMillis(200));
            try (var silent = RawPeer.accept(listening)) {
                assertEquals(Reason.TIMEOUT, failure(asked).reason(), "the request ends at its deadline");
                silent.readHello();
                silent.assertClosedByTheNode(); // after the patience; RawPeer waits up to 10 s
            }
        }
        awaitCount(ours, TcpTransport.HANDSHAKES_REFUSED, 1);
    }

    /** More peers from one address than {@link Strangers#MAX_PER_SOURCE}: each is a stranger only until its handshake. */
    @Test
    void aPeerThatCompletedTheHandshakeIsNoStrangerAnyMore() throws Exception {
        var ours = node(SECRET);
        List<RawPeer> peers = new ArrayList<>();
        for (int i = 0; i < Strangers.MAX_PER_SOURCE + 16; i++) {
            RawPeer peer = track(RawPeer.connect(ours.address())).open(SECRET, "127.0.0.1:" + (1000 + i));
            peer.expectProof();
            peers.add(peer);
        }
        for (RawPeer peer : peers) {
            var asked = new Frame(Frame.Kind.REQUEST, 1, 1, "", new byte[] {7});
            peer.send(peer.batch(asked));
            assertEquals(1, peer.readBatch().size());
        }
        assertEquals(peers.size(), served.get());
        assertEquals(0L, ours.metrics().getOrDefault(Strangers.REFUSED, 0L));
    }

    @Test
    void theResponderSeesTheAddressTheOpenerSentInItsHello() throws Exception {
        var ours = node(SECRET);
        var senders = new java.util.concurrent.CopyOnWriteArrayList<String>();
        ours.serve((sender, type, payload) -> {
            senders.add(sender);
            return CompletableFuture.completedFuture(payload);
        });
        var other = node(SECRET);
        other.request(ours.address(), 1, new byte[0], Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (var peer = RawPeer.connect(ours.address())) {
            peer.open(SECRET, "10.0.0.9:7000").expectProof();
            peer.send(peer.batch(new Frame(Frame.Kind.REQUEST, 1, 1, "", new byte[0])));
            peer.readBatch();
        }
        assertEquals(List.of(other.address(), "10.0.0.9:7000"), senders);
    }
}
