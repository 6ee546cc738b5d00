package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;

/**
 * How one frame is written inside a batch ({@link BatchWriter}). Big-endian:
 *
 * <pre>
 * frame = length:u32  kind:u8  type:u16  requestId:u64  payload        length = 11 + bytes of payload
 * </pre>
 *
 * The payload runs to the end of the frame, so it carries no length of its own. A frame has no
 * MAC, version or sender of its own: the batch around it is authenticated with its connection's
 * key, and the connection's handshake ({@link Handshake}) settled the version and who opened it.
 * Stateless.
 */
public final class FrameCodec {

    static final int HEADER_BYTES = 1 + 2 + 8;
    /** The shortest possible value of a frame's length prefix: an empty payload. */
    public static final int MIN_LENGTH = HEADER_BYTES;

    private FrameCodec() {
    }

    /** Bytes {@code frame} takes in a batch, its length prefix included. */
    public static int size(Frame frame) {
        return 4 + HEADER_BYTES + frame.payload().length;
    }

    /** Writes the whole frame, length prefix included, to {@code out}. */
    public static void encode(Frame frame, ByteBuf out) {
        out.writeInt(HEADER_BYTES + frame.payload().length);
        out.writeByte(frame.kind().ordinal());
        out.writeShort(frame.type());
        out.writeLong(frame.requestId());
        out.writeBytes(frame.payload());
    }

    /**
     * Reads one frame: exactly the bytes its length prefix announced, prefix excluded; {@code
     * sender} is the address of the node at the other end of the connection it came on.
     */
    public static Frame decode(ByteBuf frame, String sender) {
        if (frame.readableBytes() < HEADER_BYTES) {
            throw new BadFrameException("frame of " + frame.readableBytes() + " bytes is shorter than " + HEADER_BYTES);
        }
        Frame.Kind kind = Frame.Kind.ofCode(frame.readUnsignedByte());
        int type = frame.readUnsignedShort();
        long requestId = frame.readLong();
        byte[] payload = new byte[frame.readableBytes()];
        frame.readBytes(payload);
        return new Frame(kind, type, requestId, sender, payload);
    }
}
