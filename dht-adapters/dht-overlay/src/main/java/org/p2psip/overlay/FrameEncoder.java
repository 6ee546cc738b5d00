package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/** Writes frames with {@link FrameCodec}; one instance per channel. */
final class FrameEncoder extends MessageToByteEncoder<Frame> {

    private final FrameCodec codec;

    FrameEncoder(FrameCodec codec) {
        super(Frame.class);
        this.codec = codec;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, ByteBuf out) {
        codec.encode(frame, out);
    }
}
