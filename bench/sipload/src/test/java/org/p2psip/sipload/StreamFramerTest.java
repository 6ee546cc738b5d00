package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Framing SIP on a stream by Content-Length, and RFC 5626's CRLF keep-alives between messages. */
class StreamFramerTest {
    private static final String OK = "SIP/2.0 200 OK\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\nContent-Length: 0\r\n\r\n";
    private static final String BODY = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\n";
    private static final String INVITE = "INVITE sip:a@h SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK2\r\n"
            + "l: " + BODY.length() + "\r\n\r\n" + BODY;

    /** What the framer gave, in order: messages as text, each keep-alive CRLF as "CRLF". */
    private final List<String> seen = new ArrayList<>();
    private final StreamFramer framer = new StreamFramer();
    private final StreamFramer.Sink sink = new StreamFramer.Sink() {
        @Override
        public void message(byte[] message) {
            seen.add(new String(message, StandardCharsets.UTF_8));
        }

        @Override
        public void crlf() {
            seen.add("CRLF");
        }
    };

    @Test
    void coalescedMessagesComeOutOneByOne() throws IOException {
        feed(OK + INVITE + OK);
        assertEquals(List.of(OK, INVITE, OK), seen);
        assertEquals(0, framer.held());
    }

    @Test
    void aMessageSplitAnywhereComesOutWholeOnce() throws IOException {
        String stream = OK + INVITE;
        for (int cut = 1; cut < stream.length(); cut++) {
            seen.clear();
            feed(stream.substring(0, cut));
            feed(stream.substring(cut));
            assertEquals(List.of(OK, INVITE), seen, "cut at " + cut);
        }
    }

    @Test
    void aBodySplitAcrossReadsWaitsForItsLastByte() throws IOException {
        int inBody = INVITE.length() - 5;
        feed(INVITE.substring(0, inBody));
        assertEquals(List.of(), seen);
        assertEquals(inBody, framer.held());
        feed(INVITE.substring(inBody));
        assertEquals(List.of(INVITE), seen);
    }

    @Test
    void crlfsBetweenMessagesAreKeepAlivesEvenSplitBetweenReads() throws IOException {
        feed("\r\n\r\n" + OK + "\r");
        feed("\n" + OK);
        assertEquals(List.of("CRLF", "CRLF", OK, "CRLF", OK), seen);
    }

    @Test
    void aPingIsAnsweredAndAPongAfterOurPingIsCounted() {
        var keepalive = new Keepalive();
        assertEquals(Keepalive.Heard.NOTHING, keepalive.crlf());
        assertEquals(Keepalive.Heard.PING, keepalive.crlf(), "the server's CRLFCRLF");
        keepalive.pingSent();
        assertEquals(Keepalive.Heard.PONG, keepalive.crlf());
        assertEquals(Keepalive.Heard.NOTHING, keepalive.crlf());
        keepalive.message();
        assertEquals(Keepalive.Heard.NOTHING, keepalive.crlf(), "a message between two CRLFs keeps them apart");
    }

    @Test
    void aStreamThatCannotBeFramedIsGivenUp() {
        assertThrows(IOException.class, () -> feed("SIP/2.0 200 OK\r\nContent-Length: many\r\n\r\n"));
        assertThrows(IOException.class, () -> feed("X".repeat(StreamFramer.MAX_HEADER_BYTES + 1)));
    }

    private void feed(String text) throws IOException {
        byte[] bytes = ("##" + text).getBytes(StandardCharsets.UTF_8);
        framer.feed(bytes, 2, bytes.length - 2, sink); // an offset, as a shared buffer would have
    }
}
