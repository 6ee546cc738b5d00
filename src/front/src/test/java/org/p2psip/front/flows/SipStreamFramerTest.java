package org.p2psip.front.flows;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.p2psip.front.relay.StreamFrame;
import org.p2psip.front.status.FrontStats;

/**
 * The stream framer cuts messages by a Content-Length read where it lies, leaving them unparsed for
 * the kept path, and asks JAIN-SIP only when that length cannot be read so.
 */
class SipStreamFramerTest {

    private static final String HEAD = "INVITE sip:bob@example.com SIP/2.0\r\n"
            + "Via: SIP/2.0/TCP 127.0.0.1:40001;branch=z9hG4bK-1\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@example.com>;tag=a\r\n"
            + "To: <sip:bob@example.com>\r\n"
            + "Call-ID: f1\r\n"
            + "CSeq: 1 INVITE\r\n";

    @Test
    void messagesAreCutByTheirContentLengthReadWhereItLiesAndLeftUnparsed() {
        String withBody = HEAD + "l: 5\r\n\r\nhello";
        String empty = HEAD.replace("f1", "f2") + "Content-Length: 0\r\n\r\n";
        var channel = new EmbeddedChannel(new SipStreamFramer(65_000, new FrontStats()));
        String stream = "\r\n\r\n" + withBody + empty; // a keep-alive first
        int half = stream.length() / 2;
        channel.writeInbound(Unpooled.copiedBuffer(stream.substring(0, half), StandardCharsets.US_ASCII));
        channel.writeInbound(Unpooled.copiedBuffer(stream.substring(half), StandardCharsets.US_ASCII));
        StreamFrame first = channel.readInbound();
        StreamFrame second = channel.readInbound();
        assertTrue(first.unparsed() && second.unparsed(), "no JAIN-SIP parse when the length reads");
        assertNull(first.message());
        assertArrayEquals(withBody.getBytes(StandardCharsets.US_ASCII), first.bytes(), "the body by its compact l:");
        assertArrayEquals(empty.getBytes(StandardCharsets.US_ASCII), second.bytes());
        assertEquals("\r\n", channel.<io.netty.buffer.ByteBuf>readOutbound().toString(StandardCharsets.US_ASCII),
                "the keep-alive answered");
    }

    @Test
    void aHeadWithoutOneContentLengthThatReadsIsParsedByJainSip() {
        String missing = HEAD + "\r\n";
        var channel = new EmbeddedChannel(new SipStreamFramer(65_000, new FrontStats()));
        channel.writeInbound(Unpooled.copiedBuffer(missing, StandardCharsets.US_ASCII));
        StreamFrame frame = channel.readInbound();
        assertNotNull(frame.message(), "JAIN-SIP read the head, and says there is no body");
        assertEquals(false, frame.unparsed());
        assertArrayEquals(missing.getBytes(StandardCharsets.US_ASCII), frame.bytes());
    }
}
