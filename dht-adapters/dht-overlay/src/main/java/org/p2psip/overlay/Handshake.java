package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.p2psip.dht.Counters;
import org.p2psip.overlay.ConnectionKeys.Side;

/**
 * The first thing on every overlay connection (wire version 3):
 *
 * <pre>
 * opener   -> acceptor   hello = length:u32  version:u8 (=3)  nonce:32  sender:UTF-8
 * acceptor -> opener     hello = length:u32  version:u8 (=3)  nonce:32
 * opener   -> acceptor   proof:32, then its batches
 * acceptor -> opener     proof:32, then its batches
 * </pre>
 *
 * Both ends derive the connection's keys from the secret and the two nonces ({@link
 * ConnectionKeys}) and check the other's proof; then this hands the stream to a {@link
 * BatchReader}, gives the {@link BatchWriter} its key, and leaves the pipeline. The opener writes
 * its first batches right behind its proof, so a first request waits one round trip for the
 * acceptor's nonce and no more. The acceptor proves itself only once the opener has: a connection
 * without the secret never gets a MAC made with it.
 *
 * <p>A hello longer than {@link Strangers#FIRST_FRAME_BYTES} or shorter than its fixed part, of
 * another version (a node of version 2 sends a frame there, whose version byte is 2), or a stream
 * that ends inside the handshake raises {@link BadFrameException}; a wrong proof raises it counted
 * in {@link TcpTransport#HANDSHAKES_REFUSED}. The acceptor's patience is {@link Strangers}'; an
 * opener whose peer has not completed the handshake within the same patience
 * ({@link OverlayOptions#HANDSHAKE_PATIENCE}) closes the connection (counted as refused). One instance per channel.
 */
public final class Handshake extends ByteToMessageDecoder {

    public static final int VERSION = 3;
    /** The event fired down the pipeline when the peer has proven it holds the secret. */
    static final Object ESTABLISHED = new Object() {
        @Override
        public String toString() {
            return "overlay handshake established";
        }
    };
    private static final int HELLO_FIXED = 1 + ConnectionKeys.NONCE_BYTES;

    private final Side side;
    private final byte[] secret;
    private final byte[] nonce = ConnectionKeys.nonce();
    private final BatchWriter writer;
    private final int maxFrameBytes;
    private final Counters counters;
    /** Opener only: how long the acceptor may take to prove itself (the acceptor's is {@link Strangers}'). */
    private final Duration handshakeWithin;
    /** Opener only: completed with the channel once frames may be written to it. */
    private final Promise<Channel> ready;
    private String sender;
    private ConnectionKeys keys;
    private ScheduledFuture<?> patience;
    private boolean failed;

    /** The opener's side: {@code sender} is this node's address; {@code ready} completes once requests may go. */
    static Handshake opener(byte[] secret, String sender, Promise<Channel> ready, BatchWriter writer,
                            int maxFrameBytes, Duration patience, Counters counters) {
        return new Handshake(Side.OPENER, secret, sender, ready, writer, maxFrameBytes, patience, counters);
    }

    /** The acceptor's side: the sender is what the opener's hello says. */
    static Handshake acceptor(byte[] secret, BatchWriter writer, int maxFrameBytes, Counters counters) {
        return new Handshake(Side.ACCEPTOR, secret, null, null, writer, maxFrameBytes, null, counters);
    }

    private Handshake(Side side, byte[] secret, String sender, Promise<Channel> ready, BatchWriter writer,
                      int maxFrameBytes, Duration patience, Counters counters) {
        this.side = side;
        this.secret = secret;
        this.sender = sender;
        this.ready = ready;
        this.writer = writer;
        this.maxFrameBytes = maxFrameBytes;
        this.handshakeWithin = patience;
        this.counters = counters;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (side == Side.OPENER) {
            ctx.writeAndFlush(hello(nonce, sender));
            patience = ctx.executor().schedule(() -> {
                ctx.fireExceptionCaught(new BadFrameException(TcpTransport.HANDSHAKES_REFUSED,
                        "no handshake within " + handshakeWithin.toMillis() + " ms"));
            }, handshakeWithin.toNanos(), TimeUnit.NANOSECONDS);
        }
        super.channelActive(ctx);
    }

    /** A hello as its side sends it: the acceptor's with an empty sender. */
    public static ByteBuf hello(byte[] nonce, String sender) {
        byte[] address = sender.getBytes(StandardCharsets.UTF_8);
        ByteBuf out = Unpooled.buffer(4 + HELLO_FIXED + address.length);
        out.writeInt(HELLO_FIXED + address.length).writeByte(VERSION).writeBytes(nonce).writeBytes(address);
        return out;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
        } else if (keys == null) {
            readHello(ctx, in);
        } else if (in.readableBytes() >= BatchMac.BYTES) {
            byte[] proof = new byte[BatchMac.BYTES];
            in.readBytes(proof);
            checkProof(ctx, proof, in);
        }
    }

    private void readHello(ChannelHandlerContext ctx, ByteBuf in) {
        if (in.readableBytes() < 4) {
            return;
        }
        long length = in.getUnsignedInt(in.readerIndex());
        if (length < HELLO_FIXED || length > Strangers.FIRST_FRAME_BYTES) {
            throw refuse(in, AbstractTransport.BAD_FRAMES, "hello length " + length + " outside " + HELLO_FIXED + ".."
                    + Strangers.FIRST_FRAME_BYTES);
        }
        if (in.readableBytes() < 4 + length) {
            return;
        }
        in.skipBytes(4);
        int version = in.readUnsignedByte();
        if (version != VERSION) {
            throw refuse(in, AbstractTransport.BAD_FRAMES, "unknown version " + version + ", this node speaks " + VERSION);
        }
        byte[] peerNonce = new byte[ConnectionKeys.NONCE_BYTES];
        in.readBytes(peerNonce);
        String address = in.readCharSequence((int) length - HELLO_FIXED, StandardCharsets.UTF_8).toString();
        if (side == Side.ACCEPTOR) {
            sender = address;
            keys = ConnectionKeys.derive(secret, peerNonce, nonce, sender);
            ctx.writeAndFlush(hello(nonce, ""));
        } else {
            keys = ConnectionKeys.derive(secret, nonce, peerNonce, sender);
            ctx.writeAndFlush(Unpooled.wrappedBuffer(keys.proof(side)));
            writer.start(keys.batches(side));
            ready.trySuccess(ctx.channel()); // its requests follow the proof, in the same flush
        }
    }

    private void checkProof(ChannelHandlerContext ctx, byte[] proof, ByteBuf in) {
        if (!MessageDigest.isEqual(proof, keys.proof(side.other()))) {
            throw refuse(in, TcpTransport.HANDSHAKES_REFUSED, "wrong proof: the peer does not hold the overlay secret");
        }
        if (side == Side.ACCEPTOR) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(keys.proof(side)));
            writer.start(keys.batches(side));
        }
        if (patience != null) {
            patience.cancel(false);
        }
        counters.increment(TcpTransport.HANDSHAKES);
        ctx.pipeline().addAfter(ctx.name(), null, new BatchReader(keys.batches(side.other()), sender, maxFrameBytes, counters));
        ctx.fireUserEventTriggered(ESTABLISHED);
        ctx.pipeline().remove(this); // the bytes after the proof go on to the batch reader
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        decode(ctx, in, out);
        if (in.isReadable() && !failed && !ctx.isRemoved()) {
            throw refuse(in, AbstractTransport.BAD_FRAMES, "stream ended inside the handshake");
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (patience != null) {
            patience.cancel(false);
        }
        if (ready != null) {
            ready.tryFailure(new IOException("connection closed before its handshake completed"));
        }
        super.channelInactive(ctx);
    }

    private BadFrameException refuse(ByteBuf in, String counter, String why) {
        failed = true;
        in.skipBytes(in.readableBytes());
        return new BadFrameException(counter, why);
    }
}
