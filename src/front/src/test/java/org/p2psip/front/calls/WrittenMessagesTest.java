package org.p2psip.front.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The messages the kept path writes itself, from the bytes of the request they answer or follow
 * (RFC 3261 §8.2.6, §9.1, §17.1.1.3), and what it splices into what it passes on: each read back
 * by JAIN-SIP's parser, the reference, and checked header by header.
 */
class WrittenMessagesTest {

    private final Message invite = SipMessages.invite();
    private final SIPRequest parsed = SipMessages.asRequest(invite);

    @Test
    void anAnswerCopiesEveryViaFromToCallIdAndCSeqAddsTheTagAndHasNoBody() {
        SIPResponse answer = SipMessages.asResponse(Answers.of(invite, 480, "Temporarily Unavailable", "t1", ""));
        assertEquals(480, answer.getStatusCode());
        assertEquals("Temporarily Unavailable", answer.getReasonPhrase());
        assertEquals(parsed.getViaHeaders().toString(), answer.getViaHeaders().toString(), "every Via, in order");
        assertEquals(parsed.getFrom().toString(), answer.getFrom().toString());
        assertEquals("t1", answer.getTo().getTag(), "the front's tag on a To that had none");
        assertEquals(parsed.getTo().getAddress().toString(), answer.getTo().getAddress().toString());
        assertEquals("c1@example.com", answer.getCallId().getCallId());
        assertEquals(314, answer.getCSeq().getSeqNumber());
        assertEquals("INVITE", answer.getCSeq().getMethod());
        assertEquals(0, answer.getContentLength().getContentLength());
        assertNull(answer.getHeader("Contact"), "nothing but §8.2.6.2's headers");
        assertNull(answer.getHeader("Record-Route"));
        assertNull(answer.getHeader("Route"));
        assertNull(answer.getHeader("Timestamp"), "a Timestamp only in a 100");
        assertNull(answer.getHeader("Max-Forwards"));
    }

    @Test
    void aToThatHasATagKeepsItAndA503CarriesItsRetryAfter() {
        Message bye = Message.read(SipMessages.request("BYE", 9).toString().replace("To: Bob <sip:bob@example.com>",
                "To: Bob <sip:bob@example.com>;tag=callee").getBytes(StandardCharsets.ISO_8859_1));
        SIPResponse answer = SipMessages.asResponse(Answers.of(bye, 503, "Service Unavailable", "t2",
                "Retry-After: 5\r\n"));
        assertEquals("callee", answer.getTo().getTag());
        assertEquals("BYE", answer.getCSeq().getMethod());
        assertEquals(5, ((javax.sip.header.RetryAfterHeader) answer.getHeader("Retry-After")).getRetryAfter());
    }

    @Test
    void aTryingHasNoTagAndTheInvitesTimestamp() {
        SIPResponse trying = SipMessages.asResponse(Answers.of(invite, 100, "Trying", null, ""));
        assertNull(trying.getTo().getTag());
        assertEquals("54", trying.getHeader("Timestamp").toString().replaceAll("\\D+", ""));
    }

    @Test
    void theCompactFormsOfARequestAreCopiedAsTheyCame() {
        String compact = "BYE sip:bob@10.0.0.2 SIP/2.0\r\nv: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bKc1\r\n"
                + "f: <sip:alice@example.com>;tag=a\r\nt: <sip:bob@example.com>;tag=b\r\ni: c2\r\n"
                + "CSeq: 2 BYE\r\nl: 0\r\n\r\n";
        Message bye = Message.read(compact.getBytes(StandardCharsets.ISO_8859_1));
        String written = Answers.of(bye, 200, "OK", "t3", "").toString();
        assertTrue(written.startsWith("SIP/2.0 200 OK\r\nv: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bKc1\r\n"
                + "f: <sip:alice@example.com>;tag=a\r\nt: <sip:bob@example.com>;tag=b\r\ni: c2\r\nCSeq: 2 BYE\r\n"),
                written);
        assertTrue(written.endsWith("Content-Length: 0\r\n\r\n"), written);
    }

    @Test
    void theAckOfAFailureHasTheInvitesTopViaRouteFromAndTheAnswersTo() {
        Message busy = SipMessages.answer(invite, 486, "busy");
        SIPRequest ack = SipMessages.asRequest(CancelAndAck.ack(invite, busy));
        assertEquals("ACK", ack.getMethod());
        assertEquals("sip:bob@example.com", ack.getRequestURI().toString());
        assertEquals(1, ack.getViaHeaders().size());
        assertEquals(parsed.getTopmostVia().toString(), ack.getTopmostVia().toString());
        assertEquals(parsed.getRouteHeaders().toString(), ack.getRouteHeaders().toString());
        assertEquals(parsed.getFrom().toString(), ack.getFrom().toString());
        assertEquals("busy", ack.getTo().getTag());
        assertEquals("c1@example.com", ack.getCallId().getCallId());
        assertEquals(314, ack.getCSeq().getSeqNumber());
        assertEquals("ACK", ack.getCSeq().getMethod());
        assertEquals(69, ack.getMaxForwards().getMaxForwards(), "the INVITE's Max-Forwards");
        assertNull(ack.getHeader("Contact"));
        assertNull(ack.getHeader("Record-Route"));
        assertNull(ack.getHeader("Timestamp"));
        assertEquals(0, ack.getContentLength().getContentLength());
    }

    @Test
    void theCancelHasTheInvitesToAndMaxForwards70() {
        SIPRequest cancel = SipMessages.asRequest(CancelAndAck.cancel(invite));
        assertEquals("CANCEL", cancel.getMethod());
        assertEquals(parsed.getTo().toString(), cancel.getTo().toString());
        assertEquals(parsed.getTopmostVia().toString(), cancel.getTopmostVia().toString());
        assertEquals(1, cancel.getViaHeaders().size());
        assertEquals(70, cancel.getMaxForwards().getMaxForwards());
        assertEquals("CANCEL", cancel.getCSeq().getMethod());
        assertEquals(0, cancel.getContentLength().getContentLength());
    }

    @Test
    void whatGoesOnHasTheFrontsLinesFirstItsRequestUriAndTheRestAsItCame() {
        String lines = "Via: SIP/2.0/UDP 10.0.0.3:5060;branch=z9hG4bK-p2psip-kept-x\r\n"
                + "Record-Route: <sip:p2psip-kept@10.0.0.3:5060;lr>\r\n";
        Message out = Splices.forwarded(invite, lines, "sip:bob@10.0.0.2:5062", "timestamp");
        SIPRequest request = SipMessages.asRequest(out);
        assertEquals("sip:bob@10.0.0.2:5062", request.getRequestURI().toString());
        assertEquals("z9hG4bK-p2psip-kept-x", request.getTopmostVia().getBranch());
        assertEquals(3, request.getViaHeaders().size());
        assertTrue(request.getHeader("Record-Route").toString().contains("p2psip-kept@10.0.0.3:5060"));
        assertNull(request.getHeader("Timestamp"), "the header replaced is gone");
        assertEquals(parsed.getFrom().toString(), request.getFrom().toString());
        assertEquals(parsed.getRouteHeaders().toString(), request.getRouteHeaders().toString());
        String original = invite.toString();
        String expected = "INVITE sip:bob@10.0.0.2:5062 SIP/2.0\r\n" + lines
                + original.substring(original.indexOf("\r\n") + 2).replace("Timestamp: 54\r\n", "");
        assertEquals(expected, out.toString(), "nothing else changed");
    }

    @Test
    void theFrontsViaComesOffAnAnswerWhetherAloneOnItsLineOrNot() {
        Message oneLine = SipMessages.answer(invite, 180, "b");
        assertTrue(oneLine.toString().contains(",SIP/2.0/UDP"), "JAIN-SIP writes the Vias in one line");
        Message ownLine = Message.read(oneLine.toString().replace(",SIP/2.0/UDP", "\r\nVia: SIP/2.0/UDP")
                .getBytes(StandardCharsets.ISO_8859_1));
        for (Message answer : new Message[] {oneLine, ownLine}) {
            SIPResponse up = SipMessages.asResponse(Splices.withoutTopVia(answer));
            assertEquals(1, up.getViaHeaders().size());
            assertEquals("z9hG4bKcaller1", up.getTopmostVia().getBranch());
            assertEquals(180, up.getStatusCode());
            assertNull(Splices.withoutTopVia(Splices.withoutTopVia(answer)), "no Via left: nowhere to go");
        }
    }

    @Test
    void aRedirectsContactsAreReadInOrderWithTheirQ() {
        String text = SipMessages.answer(invite, 302, "n").toString().replace("Content-Length: 0",
                "Contact: \"Bob, mobile\" <sip:bob@10.0.0.2:5062;transport=udp>;q=0.5, sip:bob@10.0.0.3\r\n"
                        + "m: <sips:bob@10.0.0.4>;q=0.9,<sip:bob@phone.example.com>\r\nContent-Length: 0");
        var contacts = Contacts.of(Message.read(text.getBytes(StandardCharsets.ISO_8859_1)));
        assertEquals(4, contacts.size());
        assertEquals("sip:bob@10.0.0.2:5062;transport=udp", contacts.get(0).uri().text());
        assertEquals(0.5, contacts.get(0).q());
        assertEquals(new java.net.InetSocketAddress("10.0.0.2", 5062), contacts.get(0).uri().udpAddress());
        assertEquals(1.0, contacts.get(1).q(), "no q: 1.0");
        assertEquals(new java.net.InetSocketAddress("10.0.0.3", 5060), contacts.get(1).uri().udpAddress());
        assertNull(contacts.get(2).uri().udpAddress(), "sips: not over UDP");
        assertNull(contacts.get(3).uri().udpAddress(), "a host name the front would have to resolve");
    }
}
