package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.p2psip.dht.Counters;

/**
 * Reads a connection's batches once its handshake is done ({@link Handshake}):
 *
 * <pre>
 * batch = length:u32  frame+  mac:32        length = bytes of the frames + 32
 * </pre>
 *
 * checks each batch's MAC under the direction's key and sequence ({@link BatchMac}) before
 * reading any of its frames, and hands the frames on. A length outside [{@link #MIN_LENGTH},
 * {@link #maxLength}], a frame that does not fit its batch or is larger than {@code
 * max-frame-bytes}, or a stream that ends inside a batch raises {@link BadFrameException}; a MAC
 * that does not check raises it counted in {@link AbstractTransport#REPLAYS_REFUSED}. Either way
 * no frame of that batch is handed on, the connection is closed and the rest of the stream dropped
 * unread: after a batch that fails its MAC the two ends no longer agree on the sequence, so no
 * later batch could pass either. One instance per channel.
 */
final class BatchReader extends ByteToMessageDecoder {

    /** The shortest possible value of a batch's length prefix: one empty frame and the MAC. */
    static final int MIN_LENGTH = 4 + FrameCodec.MIN_LENGTH + BatchMac.BYTES;

    private final BatchMac mac;
    private final String sender;
    private final int maxFrameBytes;
    private final Counters counters;
    private boolean failed;

    /** {@code sender}: the address of the node at the other end, as the handshake said. */
    BatchReader(BatchMac mac, String sender, int maxFrameBytes, Counters counters) {
        this.mac = mac;
        this.sender = sender;
        this.maxFrameBytes = maxFrameBytes;
        this.counters = counters;
    }

    /**
     * The largest value of a batch's length prefix: {@link BatchWriter#BATCH_BYTES} of frames, or
     * one frame of up to {@code maxFrameBytes}, whichever is more, and the MAC.
     */
    static long maxLength(int maxFrameBytes) {
        return Math.max(BatchWriter.BATCH_BYTES, 4L + maxFrameBytes) + BatchMac.BYTES;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < 4) {
            return;
        }
        long length = in.getUnsignedInt(in.readerIndex());
        long max = maxLength(maxFrameBytes);
        if (length < MIN_LENGTH || length > max) {
            throw refuse(in, AbstractTransport.BAD_FRAMES, "batch length " + length + " outside " + MIN_LENGTH + ".." + max);
        }
        if (in.readableBytes() < 4 + length) {
            return;
        }
        int start = in.readerIndex();
        int macAt = start + 4 + (int) length - BatchMac.BYTES;
        byte[] expected = mac.next(in, start, macAt - start);
        byte[] actual = new byte[BatchMac.BYTES];
        in.getBytes(macAt, actual);
        if (!MessageDigest.isEqual(expected, actual)) {
            throw refuse(in, AbstractTransport.REPLAYS_REFUSED, "a batch whose MAC does not check under this"
                    + " connection's key and sequence: replayed, reordered, spliced or altered");
        }
        counters.increment(TcpTransport.BATCHES_RECEIVED);
        ByteBuf frames = in.slice(start + 4, macAt - start - 4);
        List<Frame> batch = new ArrayList<>();
        try {
            while (frames.isReadable()) {
                batch.add(readFrame(frames));
            }
        } catch (BadFrameException e) {
            throw refuse(in, AbstractTransport.BAD_FRAMES, e.getMessage());
        }
        in.skipBytes(4 + (int) length);
        out.addAll(batch);
    }

    private Frame readFrame(ByteBuf frames) {
        if (frames.readableBytes() < 4) {
            throw new BadFrameException("a frame's length prefix cut by the end of its batch");
        }
        long length = frames.readUnsignedInt();
        if (length < FrameCodec.MIN_LENGTH || length > maxFrameBytes || length > frames.readableBytes()) {
            throw new BadFrameException("frame length " + length + " outside " + FrameCodec.MIN_LENGTH + ".."
                    + Math.min(maxFrameBytes, frames.readableBytes()) + " in its batch");
        }
        return FrameCodec.decode(frames.readSlice((int) length), sender);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        decode(ctx, in, out);
        if (in.isReadable() && !failed) {
            throw refuse(in, AbstractTransport.BAD_FRAMES, "stream ended inside a batch (" + in.readableBytes() + " bytes left)");
        }
    }

    private BadFrameException refuse(ByteBuf in, String counter, String why) {
        failed = true;
        in.skipBytes(in.readableBytes());
        return new BadFrameException(counter, why);
    }
}
