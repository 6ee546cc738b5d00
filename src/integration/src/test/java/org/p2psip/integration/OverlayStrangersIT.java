package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.p2psip.overlay.Frame;
import org.p2psip.overlay.FrameCodec;
import org.p2psip.overlay.Stamp;
import org.p2psip.overlay.StampedFrame;

/**
 * Two Chord nodes and strangers at node 0's overlay port: rounds of 500 connections, each
 * announcing a 4 MiB frame and sending 1 MiB of garbage, while SIPp registers through node 0;
 * then a frame signed with the deployment's secret (standing for one captured off the wire) sent
 * once, answered, and replayed on a new connection, never answered. Throughout, node 0 serves
 * REGISTERs and the ring still routes: what is registered through one node is found through the other.
 * A flood: the matrix run's, out of the default run's budget.
 */
@Matrix
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OverlayStrangersIT extends DeployedNodes {

    private static final int USERS = 300;
    /** REGISTERs per second during the flood: a modest rate, far below a node's capacity. */
    private static final int RATE = 50;
    /**
     * Chord's PING (dht-adapters/dht-chord/README.md): a request of only its target place, the
     * node's first (at the SHA-1 of its overlay address), answered empty.
     */
    private static final int PING = 4;

    OverlayStrangersIT() {
        super("overlay-strangers", "chord", 25500, 2);
    }

    @Test
    @Order(1)
    void aFloodOfStrangersNeitherStopsRegistrationsNorBreaksTheRing() throws Exception {
        sipp.register(deployment.node(0), 200, 1_000_000, 50); // warm-up, not judged (Deployment warms briefly)
        var flood = new Flood(deployment.overlay(0));
        CompletableFuture<Flood.Round> flooding = CompletableFuture.supplyAsync(flood::untilStopped);
        int registered;
        try {
            registered = sipp.register(deployment.node(0), USERS, 0, RATE);
        } finally {
            flood.stop();
        }
        Flood.Round rounds = flooding.get();
        assertEquals(0, registered, "a REGISTER through node 0 failed during the flood; " + sipp.where());
        assertTrue(rounds.rounds() >= 1, "the flood ran while SIPp registered");
        assertEquals(rounds.connections(), rounds.closedByNode(), "every stranger's connection was closed by the "
                + "node, none left holding its announced 4 MiB: " + rounds);
        assertEquals(0, sipp.query(deployment.node(1), USERS, 0, RATE),
                "node 1 no longer finds what node 0 registered during the flood; " + sipp.where());
    }

    @Test
    @Order(2)
    void aCapturedFrameIsServedOnceAndItsReplayOnANewConnectionNever() throws IOException {
        var codec = new FrameCodec(deployment.nodeProperty(0, "p2psip.overlay.secret").getBytes(StandardCharsets.UTF_8));
        byte[] target = firstPlace(deployment.overlay(0));
        byte[] captured = frame(codec, System.currentTimeMillis(), target);

        try (var first = connect()) {
            first.getOutputStream().write(captured);
            StampedFrame answer = read(codec, first);
            assertEquals(Frame.Kind.RESPONSE, answer.frame().kind(), "the frame itself, the first time, is served");
            assertEquals(7L, answer.frame().requestId());
        }
        try (var replay = connect()) {
            replay.getOutputStream().write(captured);
            assertClosedUnanswered(replay, "the same frame again, on a new connection");
        }
        try (var stale = connect()) {
            stale.getOutputStream().write(frame(codec, System.currentTimeMillis() - 120_000, target));
            assertClosedUnanswered(stale, "a frame stamped two minutes ago, outside the replay window");
        }
        assertEquals(0, sipp.register(deployment.node(1), 100, 10_000, RATE), "node 1 still registers; " + sipp.where());
        assertEquals(0, sipp.query(deployment.node(0), 100, 10_000, RATE),
                "node 0 still finds what node 1 registered: the ring is as it was; " + sipp.where());
    }

    /** A Chord PING request to {@code target} as a node sends it, stamped sentAt on a channel of its own. */
    private static byte[] frame(FrameCodec codec, long sentAt, byte[] target) {
        ByteBuf out = Unpooled.buffer();
        var ping = new Frame(Frame.Kind.REQUEST, PING, 7L, "127.0.0.1:25599", target);
        codec.encode(ping, new Stamp(sentAt, new SecureRandom().nextLong(), 1), out);
        return ByteBufUtil.getBytes(out);
    }

    /** The id of a node's first place: the SHA-1 of its overlay address, 20 bytes. */
    private static byte[] firstPlace(String overlayAddress) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(overlayAddress.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }

    private Socket connect() throws IOException {
        String[] hostPort = deployment.overlay(0).split(":");
        var socket = new Socket();
        socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static StampedFrame read(FrameCodec codec, Socket socket) throws IOException {
        var in = new DataInputStream(socket.getInputStream());
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        return codec.decode(Unpooled.wrappedBuffer(body));
    }

    private static void assertClosedUnanswered(Socket socket, String what) throws IOException {
        try {
            int got = socket.getInputStream().read();
            assertEquals(-1, got, what + ": the node answered (first byte " + got + ")");
        } catch (SocketTimeoutException e) {
            throw new AssertionError(what + ": the node neither answered nor closed the connection in 10 s", e);
        } catch (IOException reset) {
            // closed by the node with a reset: unanswered too
        }
    }
}
