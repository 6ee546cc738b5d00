package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The overlay's wire format, shared by every backend that talks over TCP. Big-endian:
 *
 * <pre>
 * frame = length:u32  body  mac:32        length = bytes of body + mac
 * body  = version:u8 (=2)  kind:u8  type:u16  requestId:u64
 *         sentAt:u64  channel:u64  sequence:u64  senderLength:u16  sender:UTF-8  payload
 * mac   = HMAC-SHA256(overlay secret, body)
 * </pre>
 *
 * The payload runs to the MAC, so it needs no length of its own. A frame of another version, a
 * bad MAC, or fields that overrun the frame are refused whole with {@link BadFrameException}.
 * The {@link Stamp} (sentAt, channel, sequence) is under the MAC so that nobody without the secret
 * can renew an old frame's; whether a stamp is acceptable is {@link Replays}' business, not this.
 *
 * <p>Not thread-safe (it holds a {@link Mac}): one codec per channel, used on its event loop.
 */
public final class FrameCodec {

    public static final int VERSION = 2;
    static final int MAC_BYTES = 32;
    static final int HEADER_BYTES = 1 + 1 + 2 + 8 + 8 + 8 + 8 + 2;
    /** The shortest possible value of the length prefix: an empty sender and payload. */
    public static final int MIN_LENGTH = HEADER_BYTES + MAC_BYTES;

    private final Mac mac;

    public FrameCodec(byte[] secret) {
        if (secret.length == 0) {
            throw new IllegalArgumentException("the overlay secret must not be empty");
        }
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    /** Writes the whole frame with its stamp, length prefix included, to {@code out}. */
    public void encode(Frame frame, Stamp stamp, ByteBuf out) {
        byte[] sender = frame.sender().getBytes(StandardCharsets.UTF_8);
        if (sender.length > 0xFFFF) {
            throw new IllegalArgumentException("sender address too long");
        }
        int length = HEADER_BYTES + sender.length + frame.payload().length + MAC_BYTES;
        out.writeInt(length);
        int bodyStart = out.writerIndex();
        out.writeByte(VERSION);
        out.writeByte(frame.kind().ordinal());
        out.writeShort(frame.type());
        out.writeLong(frame.requestId());
        out.writeLong(stamp.sentAt());
        out.writeLong(stamp.channel());
        out.writeLong(stamp.sequence());
        out.writeShort(sender.length);
        out.writeBytes(sender);
        out.writeBytes(frame.payload());
        out.writeBytes(macOf(out, bodyStart, out.writerIndex() - bodyStart));
    }

    /** Reads one frame from {@code frame}: exactly the bytes the length prefix announced, prefix excluded. */
    public StampedFrame decode(ByteBuf frame) {
        int length = frame.readableBytes();
        if (length < MIN_LENGTH) {
            throw new BadFrameException("frame of " + length + " bytes is shorter than " + MIN_LENGTH);
        }
        int start = frame.readerIndex();
        int bodyLength = length - MAC_BYTES;
        byte[] expected = macOf(frame, start, bodyLength);
        byte[] actual = new byte[MAC_BYTES];
        frame.getBytes(start + bodyLength, actual);
        int version = frame.readUnsignedByte();
        if (version != VERSION) {
            throw new BadFrameException("unknown frame version " + version + ", this node speaks " + VERSION);
        }
        if (!MessageDigest.isEqual(expected, actual)) {
            throw new BadFrameException("bad MAC: the sender does not hold the overlay secret");
        }
        Frame.Kind kind = Frame.Kind.ofCode(frame.readUnsignedByte());
        int type = frame.readUnsignedShort();
        long requestId = frame.readLong();
        var stamp = new Stamp(frame.readLong(), frame.readLong(), frame.readLong());
        int senderLength = frame.readUnsignedShort();
        int payloadLength = bodyLength - HEADER_BYTES - senderLength;
        if (payloadLength < 0) {
            throw new BadFrameException("sender of " + senderLength + " bytes overruns the frame");
        }
        String sender = frame.readCharSequence(senderLength, StandardCharsets.UTF_8).toString();
        byte[] payload = new byte[payloadLength];
        frame.readBytes(payload);
        frame.skipBytes(MAC_BYTES);
        return new StampedFrame(new Frame(kind, type, requestId, sender, payload), stamp);
    }

    private byte[] macOf(ByteBuf buf, int index, int length) {
        if (buf.hasArray()) {
            mac.update(buf.array(), buf.arrayOffset() + index, length);
        } else {
            mac.update(buf.nioBuffer(index, length));
        }
        return mac.doFinal();
    }
}
