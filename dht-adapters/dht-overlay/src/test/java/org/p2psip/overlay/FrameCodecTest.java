package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class FrameCodecTest {

    static ByteBuf encoded(Frame frame) {
        ByteBuf out = Unpooled.buffer();
        FrameCodec.encode(frame, out);
        return out;
    }

    private static Frame sample() {
        return new Frame(Frame.Kind.REQUEST, 513, 77L, "127.0.0.1:6070", new byte[] {1, 2, 3});
    }

    @Test
    void aFrameSurvivesEncodingAndDecodingWithTheSenderItsConnectionNames() {
        ByteBuf bytes = encoded(sample());
        assertEquals(FrameCodec.size(sample()), bytes.readableBytes());
        assertEquals(bytes.readableBytes() - 4, bytes.readInt(), "the prefix counts the bytes after it");
        Frame back = FrameCodec.decode(bytes, "127.0.0.1:6071");
        assertEquals(Frame.Kind.REQUEST, back.kind());
        assertEquals(513, back.type());
        assertEquals(77L, back.requestId());
        assertEquals("127.0.0.1:6071", back.sender(), "the sender is the connection's, not the frame's");
        assertArrayEquals(new byte[] {1, 2, 3}, back.payload());
        assertEquals(0, bytes.readableBytes());
    }

    @Test
    void anEmptyPayloadMakesTheShortestFrame() {
        ByteBuf bytes = encoded(new Frame(Frame.Kind.RESPONSE, 1, 1, "", new byte[0]));
        assertEquals(FrameCodec.MIN_LENGTH, bytes.readInt());
        assertEquals(0, FrameCodec.decode(bytes, "x").payload().length);
    }

    @Test
    void anUnknownKindOrAFrameShorterThanItsHeaderIsRefused() {
        ByteBuf unknownKind = encoded(sample());
        unknownKind.setByte(4, 9);
        unknownKind.skipBytes(4);
        assertThrows(BadFrameException.class, () -> FrameCodec.decode(unknownKind, "x"));
        assertThrows(BadFrameException.class, () -> FrameCodec.decode(Unpooled.wrappedBuffer(new byte[FrameCodec.MIN_LENGTH - 1]), "x"));
    }
}
