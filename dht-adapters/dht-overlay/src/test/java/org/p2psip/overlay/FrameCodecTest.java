package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FrameCodecTest {

    private final FrameCodec codec = new FrameCodec("secret".getBytes(StandardCharsets.UTF_8));

    private static final Stamp STAMP = new Stamp(1_700_000_000_123L, 0x0123456789abcdefL, 42);

    static ByteBuf encoded(FrameCodec codec, Frame frame, Stamp stamp) {
        ByteBuf out = Unpooled.buffer();
        codec.encode(frame, stamp, out);
        return out;
    }

    static ByteBuf encoded(FrameCodec codec, Frame frame) {
        return encoded(codec, frame, STAMP);
    }

    private static Frame sample() {
        return new Frame(Frame.Kind.REQUEST, 513, 77L, "127.0.0.1:6070", new byte[] {1, 2, 3});
    }

    @Test
    void aFrameAndItsStampSurviveEncodingAndDecoding() {
        ByteBuf bytes = encoded(codec, sample());
        assertEquals(bytes.readableBytes() - 4, bytes.readInt(), "the prefix counts the bytes after it");
        StampedFrame decoded = codec.decode(bytes);
        assertEquals(STAMP, decoded.stamp());
        Frame back = decoded.frame();
        assertEquals(Frame.Kind.REQUEST, back.kind());
        assertEquals(513, back.type());
        assertEquals(77L, back.requestId());
        assertEquals("127.0.0.1:6070", back.sender());
        assertArrayEquals(new byte[] {1, 2, 3}, back.payload());
        assertEquals(0, bytes.readableBytes());
    }

    @Test
    void aFrameMadeWithAnotherSecretIsRefused() {
        ByteBuf bytes = encoded(new FrameCodec("other".getBytes(StandardCharsets.UTF_8)), sample());
        bytes.skipBytes(4);
        var refused = assertThrows(BadFrameException.class, () -> codec.decode(bytes));
        assertEquals(true, refused.getMessage().contains("MAC"), refused.getMessage());
    }

    @Test
    void aFlippedPayloadBitIsRefused() {
        ByteBuf bytes = encoded(codec, sample());
        int payloadAt = bytes.writerIndex() - FrameCodec.MAC_BYTES - 1;
        bytes.setByte(payloadAt, bytes.getByte(payloadAt) ^ 1);
        bytes.skipBytes(4);
        assertThrows(BadFrameException.class, () -> codec.decode(bytes));
    }

    @Test
    void aChangedStampIsRefusedSinceTheMacCoversIt() {
        for (int field = 0; field < 3; field++) { // sentAt, channel, sequence: 8 bytes each after requestId
            ByteBuf bytes = encoded(codec, sample());
            int at = 4 + 1 + 1 + 2 + 8 + field * 8 + 7;
            bytes.setByte(at, bytes.getByte(at) ^ 1);
            bytes.skipBytes(4);
            var refused = assertThrows(BadFrameException.class, () -> codec.decode(bytes), "stamp field " + field);
            assertEquals(true, refused.getMessage().contains("MAC"), refused.getMessage());
        }
    }

    @Test
    void aVersionOneFrameIsRefused() {
        ByteBuf bytes = encoded(codec, sample());
        bytes.setByte(4, 1);
        bytes.skipBytes(4);
        var refused = assertThrows(BadFrameException.class, () -> codec.decode(bytes));
        assertEquals(true, refused.getMessage().contains("version"), refused.getMessage());
    }

    @Test
    void aSenderLengthOverrunningTheFrameIsRefused() {
        ByteBuf bytes = encoded(codec, new Frame(Frame.Kind.RESPONSE, 1, 1, "", new byte[0]));
        bytes.skipBytes(4);
        // the MAC covers the length field, so recompute it as an insider with the secret would
        ByteBuf forged = Unpooled.buffer();
        forged.writeBytes(bytes, bytes.readerIndex(), FrameCodec.HEADER_BYTES - 2);
        forged.writeShort(500);
        assertThrows(BadFrameException.class, () -> codec.decode(withMac(forged)));
    }

    private ByteBuf withMac(ByteBuf body) {
        try {
            var mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec("secret".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] raw = new byte[body.readableBytes()];
            body.getBytes(body.readerIndex(), raw);
            return Unpooled.wrappedBuffer(raw, mac.doFinal(raw));
        } catch (java.security.GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }
}
