package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import java.time.Clock;

/**
 * Writes frames with {@link FrameCodec}, each stamped with the time, this direction's channel id
 * and its next sequence number, so the peer's {@link Replays} can tell it from a replayed copy. One
 * instance per channel: it writes on the channel's loop, in the order TCP delivers, so the
 * sequence the peer sees only rises.
 */
final class FrameEncoder extends MessageToByteEncoder<Frame> {

    private final FrameCodec codec;
    private final Clock clock;
    private final long channel;
    private long sequence;

    /** {@code channel}: a random id (SecureRandom), so no two directions of any connections share one. */
    FrameEncoder(FrameCodec codec, Clock clock, long channel) {
        super(Frame.class);
        this.codec = codec;
        this.clock = clock;
        this.channel = channel;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, ByteBuf out) {
        codec.encode(frame, new Stamp(clock.millis(), channel, ++sequence), out);
    }
}
