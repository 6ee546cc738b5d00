package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Cuts the byte stream into frames at their length prefixes and decodes each. A length outside
 * [{@link FrameCodec#MIN_LENGTH}, max] (for the first frame, before the peer has shown it holds the
 * secret, at most {@link Strangers#FIRST_FRAME_BYTES}), a frame the codec refuses, or a frame cut short by the end of
 * the stream raises {@link BadFrameException}; after the first one, the rest of the stream is
 * dropped unread (the connection is being closed). One instance per channel.
 */
final class FrameDecoder extends ByteToMessageDecoder {

    private final FrameCodec codec;
    private final int maxFrameBytes;
    private boolean failed;
    /** Whether a frame of this connection passed the codec's MAC check. */
    private boolean trusted;

    FrameDecoder(FrameCodec codec, int maxFrameBytes) {
        this.codec = codec;
        this.maxFrameBytes = maxFrameBytes;
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
        int max = trusted ? maxFrameBytes : Math.min(maxFrameBytes, Strangers.FIRST_FRAME_BYTES);
        if (length < FrameCodec.MIN_LENGTH || length > max) {
            throw refuse(in, "frame length " + length + " outside " + FrameCodec.MIN_LENGTH + ".." + max
                    + (trusted ? "" : " (a first frame)"));
        }
        if (in.readableBytes() < 4 + length) {
            return;
        }
        in.skipBytes(4);
        ByteBuf frame = in.readSlice((int) length);
        try {
            out.add(codec.decode(frame));
            trusted = true;
        } catch (BadFrameException e) {
            throw refuse(in, e.getMessage());
        } catch (RuntimeException e) {
            throw refuse(in, "undecodable frame: " + e);
        }
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        decode(ctx, in, out);
        if (in.isReadable() && !failed) {
            throw refuse(in, "stream ended inside a frame (" + in.readableBytes() + " bytes left)");
        }
    }

    private BadFrameException refuse(ByteBuf in, String why) {
        failed = true;
        in.skipBytes(in.readableBytes());
        return new BadFrameException(why);
    }
}
