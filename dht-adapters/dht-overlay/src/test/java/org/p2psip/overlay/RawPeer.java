package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.p2psip.config.HostPort;
import org.p2psip.overlay.ConnectionKeys.Side;

/**
 * One end of an overlay connection spoken by hand, as bytes: either side of the handshake, then
 * batches made and read with the connection's keys; or a tap that keeps what a node sent, or an
 * attacker sending captured bytes again. It records every byte it received. Reads give up after 10 s.
 */
final class RawPeer implements AutoCloseable {

    private final Socket socket;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final DataInputStream in;
    private ConnectionKeys keys;
    private Side side;
    private BatchMac sending;
    private BatchMac receiving;

    RawPeer(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(10_000);
        this.in = new DataInputStream(new FilterInputStream(socket.getInputStream()) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0) {
                    received.write(b);
                }
                return b;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                int n = super.read(buffer, offset, length);
                if (n > 0) {
                    received.write(buffer, offset, n);
                }
                return n;
            }
        });
    }

    /** Connects to a node's overlay address. */
    static RawPeer connect(String address) throws IOException {
        var target = HostPort.parse(address).socketAddress();
        return new RawPeer(new Socket(target.getAddress(), target.getPort()));
    }

    /** Takes the next connection a node opens to {@code listening}. */
    static RawPeer accept(ServerSocket listening) throws IOException {
        return new RawPeer(listening.accept());
    }

    void send(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    /** Every byte received so far. */
    byte[] received() {
        return received.toByteArray();
    }

    /**
     * The opener's side of the handshake with {@code secret}, claiming to be {@code sender}, up to
     * and with its proof; the acceptor's proof is left to {@link #expectProof}.
     */
    RawPeer open(String secret, String sender) throws IOException {
        byte[] nonce = ConnectionKeys.nonce();
        send(ByteBufUtil.getBytes(Handshake.hello(nonce, sender)));
        Hello theirs = readHello();
        start(Side.OPENER, ConnectionKeys.derive(bytes(secret), nonce, theirs.nonce, sender));
        send(keys.proof(side));
        return this;
    }

    /** The acceptor's side of the handshake with {@code secret}, its proof sent whatever the opener's; returns the opener's. */
    byte[] accept(String secret) throws IOException {
        Hello theirs = readHello();
        byte[] nonce = ConnectionKeys.nonce();
        send(ByteBufUtil.getBytes(Handshake.hello(nonce, "")));
        start(Side.ACCEPTOR, ConnectionKeys.derive(bytes(secret), theirs.nonce, nonce, theirs.sender));
        byte[] proof = in.readNBytes(BatchMac.BYTES);
        send(keys.proof(side));
        return proof;
    }

    /** Reads the other side's proof and checks it. */
    void expectProof() throws IOException {
        assertArrayEquals(keys.proof(side.other()), in.readNBytes(BatchMac.BYTES), "the node's proof");
    }

    private void start(Side side, ConnectionKeys keys) {
        this.side = side;
        this.keys = keys;
        this.sending = keys.batches(side);
        this.receiving = keys.batches(side.other());
    }

    record Hello(int version, byte[] nonce, String sender) {
    }

    /** Reads a hello and checks its version. */
    Hello readHello() throws IOException {
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        byte[] nonce = java.util.Arrays.copyOfRange(body, 1, 1 + ConnectionKeys.NONCE_BYTES);
        var hello = new Hello(body[0], nonce, new String(body, 1 + nonce.length, body.length - 1 - nonce.length,
                StandardCharsets.UTF_8));
        assertEquals(Handshake.VERSION, hello.version());
        return hello;
    }

    /** The next batch of this connection's sending direction, as bytes to send (or not). */
    byte[] batch(Frame... frames) {
        return seal(frames(frames));
    }

    /** The frames as a batch carries them, without its length and MAC. */
    static byte[] frames(Frame... frames) {
        ByteBuf out = Unpooled.buffer();
        for (Frame frame : frames) {
            FrameCodec.encode(frame, out);
        }
        return ByteBufUtil.getBytes(out);
    }

    /** The next batch of this connection's sending direction, of these bytes as its frames. */
    byte[] seal(byte[] frames) {
        ByteBuf out = Unpooled.buffer().writeInt(frames.length + BatchMac.BYTES).writeBytes(frames);
        out.writeBytes(sending.next(out, 0, out.readableBytes()));
        return ByteBufUtil.getBytes(out);
    }

    /** The next whole batch as it came, length prefix included. */
    byte[] readBatchBytes() throws IOException {
        int length = in.readInt();
        ByteBuf batch = Unpooled.buffer(4 + length).writeInt(length);
        batch.writeBytes(in.readNBytes(length));
        return ByteBufUtil.getBytes(batch);
    }

    /** Reads the next batch, checks its MAC, and returns its frames. */
    List<Frame> readBatch() throws IOException {
        ByteBuf batch = Unpooled.wrappedBuffer(readBatchBytes());
        int macAt = batch.readableBytes() - BatchMac.BYTES;
        assertArrayEquals(receiving.next(batch, 0, macAt), ByteBufUtil.getBytes(batch, macAt, BatchMac.BYTES),
                "the batch's MAC");
        ByteBuf frames = batch.slice(4, macAt - 4);
        List<Frame> read = new ArrayList<>();
        while (frames.isReadable()) {
            read.add(FrameCodec.decode(frames.readSlice(frames.readInt()), "the node"));
        }
        return read;
    }

    /** Expects the node to close the connection without sending anything more. */
    void assertClosedByTheNode() throws IOException {
        try {
            assertEquals(-1, in.read(), "the node must close this connection without a word");
        } catch (SocketException reset) {
            // closed with a reset: as good as an orderly close
        }
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
