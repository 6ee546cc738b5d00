package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Cuts the byte stream into frames at their length prefixes, decodes each and hands on those
 * {@link Replays} accepts. A length outside [{@link FrameCodec#MIN_LENGTH}, max] (for the first
 * frame, before the peer has shown it holds the secret, at most {@link Strangers#FIRST_FRAME_BYTES}),
 * a frame the codec refuses, or a frame cut short by the end of the stream raises
 * {@link BadFrameException}; after the first one, the rest of the stream is dropped unread (the
 * connection is being closed).
 *
 * <p>A replayed or stale frame is never handed on. As a connection's first frame it closes the
 * connection, which has shown nothing but a copy of someone else's frame; on a connection whose
 * earlier frames were accepted it is dropped and the connection stays open, since its peer did
 * hold the secret. One instance per channel.
 */
final class FrameDecoder extends ByteToMessageDecoder {

    private static final System.Logger LOG = System.getLogger(FrameDecoder.class.getName());

    private final FrameCodec codec;
    private final int maxFrameBytes;
    private final Replays replays;
    private boolean failed;
    /** Whether a frame of this connection passed the MAC check and was fresh. */
    private boolean trusted;
    private boolean replayLogged;

    FrameDecoder(FrameCodec codec, int maxFrameBytes, Replays replays) {
        this.codec = codec;
        this.maxFrameBytes = maxFrameBytes;
        this.replays = replays;
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
        StampedFrame decoded;
        try {
            decoded = codec.decode(frame);
        } catch (BadFrameException e) {
            throw refuse(in, e.getMessage());
        } catch (RuntimeException e) {
            throw refuse(in, "undecodable frame: " + e);
        }
        Replays.Verdict verdict = replays.admit(decoded.stamp());
        if (verdict.accepted()) {
            out.add(decoded.frame());
            trusted = true;
        } else {
            refuseReplay(ctx, in, decoded.stamp(), verdict);
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

    /** Replays counted it; this logs the first of the connection and closes a stranger's. */
    private void refuseReplay(ChannelHandlerContext ctx, ByteBuf in, Stamp stamp, Replays.Verdict verdict) {
        if (!replayLogged) {
            replayLogged = true;
            LOG.log(System.Logger.Level.WARNING, "overlay: refused a frame from {0} ({1}, {2}{3}); further ones"
                    + " on this connection are only counted in " + AbstractTransport.REPLAYS_REFUSED,
                    ctx.channel().remoteAddress(), verdict, stamp, trusted ? "" : ", its first frame: closing");
        }
        if (!trusted) {
            failed = true;
            in.skipBytes(in.readableBytes());
            ctx.close();
        }
    }
}
