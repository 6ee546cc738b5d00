package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.p2psip.overlay.BatchMac;
import org.p2psip.overlay.ConnectionKeys;
import org.p2psip.overlay.ConnectionKeys.Side;
import org.p2psip.overlay.Frame;
import org.p2psip.overlay.FrameCodec;
import org.p2psip.overlay.Handshake;

/**
 * Two Chord nodes and strangers at node 0's overlay port: rounds of 500 connections, each
 * announcing a 4 MiB frame and sending 1 MiB of garbage, while SIPp registers through node 0;
 * then a connection opened with the deployment's secret (standing for one captured off the wire)
 * that sends a request once, answered, and the same bytes sent again on a new connection, never
 * answered. Throughout, node 0 serves
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
    /** The address this test's insider claims in its hello. */
    private static final String SENDER = "127.0.0.1:25599";

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
    void aConnectionCapturedOffTheWireIsServedOnceAndItsReplayNever() throws IOException {
        byte[] secret = deployment.nodeProperty(0, "p2psip.overlay.secret").getBytes(StandardCharsets.UTF_8);
        byte[] target = firstPlace(deployment.overlay(0));
        var captured = new ByteArrayOutputStream(); // what this insider sends, as a tap would see it

        try (var first = connect()) {
            var out = new TeeOutputStream(first.getOutputStream(), captured);
            var in = new DataInputStream(first.getInputStream());
            byte[] nonce = ConnectionKeys.nonce();
            out.write(ByteBufUtil.getBytes(Handshake.hello(nonce, SENDER)));
            byte[] acceptorNonce = Arrays.copyOfRange(readMessage(in), 1, 1 + ConnectionKeys.NONCE_BYTES);
            var keys = ConnectionKeys.derive(secret, nonce, acceptorNonce, SENDER);
            out.write(keys.proof(Side.OPENER));
            assertArrayEquals(keys.proof(Side.ACCEPTOR), in.readNBytes(BatchMac.BYTES), "the node's proof");
            out.write(batch(keys.batches(Side.OPENER), new Frame(Frame.Kind.REQUEST, PING, 7L, SENDER, target)));
            Frame answer = readBatch(in, keys.batches(Side.ACCEPTOR)).get(0);
            assertEquals(Frame.Kind.RESPONSE, answer.kind(), "the request itself, the first time, is served");
            assertEquals(7L, answer.requestId());
        }
        try (var replay = connect()) {
            replay.getOutputStream().write(captured.toByteArray());
            readMessage(new DataInputStream(replay.getInputStream())); // the node's hello, with a new nonce
            assertClosedUnanswered(replay, "the same bytes again, on a new connection: a proof for another nonce");
        }
        assertEquals(0, sipp.register(deployment.node(1), 100, 10_000, RATE), "node 1 still registers; " + sipp.where());
        assertEquals(0, sipp.query(deployment.node(0), 100, 10_000, RATE),
                "node 0 still finds what node 1 registered: the ring is as it was; " + sipp.where());
    }

    /** The frames as one batch under {@code mac}: length, frames, MAC. */
    private static byte[] batch(BatchMac mac, Frame... frames) {
        ByteBuf out = Unpooled.buffer().writeInt(0);
        for (Frame frame : frames) {
            FrameCodec.encode(frame, out);
        }
        out.setInt(0, out.readableBytes() - 4 + BatchMac.BYTES);
        out.writeBytes(mac.next(out, 0, out.readableBytes()));
        return ByteBufUtil.getBytes(out);
    }

    private static List<Frame> readBatch(DataInputStream in, BatchMac mac) throws IOException {
        byte[] body = readMessage(in);
        ByteBuf batch = Unpooled.buffer().writeInt(body.length).writeBytes(body);
        int macAt = batch.readableBytes() - BatchMac.BYTES;
        assertArrayEquals(mac.next(batch, 0, macAt), ByteBufUtil.getBytes(batch, macAt, BatchMac.BYTES), "the batch's MAC");
        ByteBuf frames = batch.slice(4, macAt - 4);
        List<Frame> read = new ArrayList<>();
        while (frames.isReadable()) {
            read.add(FrameCodec.decode(frames.readSlice(frames.readInt()), "node 0"));
        }
        return read;
    }

    /** A length-prefixed message's body. */
    private static byte[] readMessage(DataInputStream in) throws IOException {
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        return body;
    }

    /** Writes to a socket and keeps a copy of every byte. */
    private static final class TeeOutputStream extends java.io.FilterOutputStream {
        private final ByteArrayOutputStream copy;

        TeeOutputStream(java.io.OutputStream out, ByteArrayOutputStream copy) {
            super(out);
            this.copy = copy;
        }

        @Override
        public void write(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
            copy.write(bytes);
        }
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
