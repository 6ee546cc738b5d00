package org.p2psip.front.calls;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.parser.StringMsgParser;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;

/**
 * Requests as the front sends them on (its Via on top, the caller's below, two Routes) and their
 * answers, as the machines take them ({@link Message}); and JAIN-SIP's reading of any message,
 * the reference the tests check what the machines write against.
 */
final class SipMessages {

    static final String TOP_BRANCH = "z9hG4bK-p2psip-f1";
    private static final String INVITE_LINES = "Contact: <sip:alice@10.0.0.1:5060>\r\n"
            + "Record-Route: <sip:rr@10.0.0.7;lr>\r\nTimestamp: 54\r\n";

    private SipMessages() {
    }

    static Message invite() {
        return request("INVITE", 314, INVITE_LINES);
    }

    /** The INVITE of {@link #invite} without its Max-Forwards line. */
    static Message inviteWithoutMaxForwards() {
        return read(text("INVITE", 314, INVITE_LINES).replace("Max-Forwards: 69\r\n", ""));
    }

    static Message request(String method, long cseq) {
        return request(method, cseq, "");
    }

    private static Message request(String method, long cseq, String extra) {
        return read(text(method, cseq, extra));
    }

    private static String text(String method, long cseq, String extra) {
        return method + " sip:bob@example.com SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 10.0.0.9:5060;branch=" + TOP_BRANCH + "\r\n"
                + "Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bKcaller1;received=192.0.2.1\r\n"
                + "Max-Forwards: 69\r\n"
                + "Route: <sip:node1@10.0.0.5;lr>\r\n"
                + "Route: <sip:node2@10.0.0.6;lr>\r\n"
                + "From: Alice <sip:alice@example.com>;tag=a1\r\n"
                + "To: Bob <sip:bob@example.com>\r\n"
                + "Call-ID: c1@example.com\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + extra
                + "Content-Length: 0\r\n\r\n";
    }

    /** The answer a next hop gives {@code request}, its To tagged {@code toTag} (none if null), written by JAIN-SIP. */
    static Message answer(Message request, int status, String toTag) {
        SIPResponse response = asRequest(request).createResponse(status);
        if (toTag != null) {
            try {
                response.getTo().setTag(toTag);
            } catch (ParseException e) {
                throw new IllegalArgumentException(e);
            }
        }
        return Message.read(response.encodeAsBytes("UDP"));
    }

    /** JAIN-SIP's reading of a request the machines took or wrote. */
    static SIPRequest asRequest(Message message) {
        return (SIPRequest) parse(message.bytes());
    }

    /** JAIN-SIP's reading of an answer the machines took or wrote. */
    static SIPResponse asResponse(Message message) {
        return (SIPResponse) parse(message.bytes());
    }

    static SIPMessage parse(byte[] bytes) {
        try {
            return new StringMsgParser().parseSIPMessage(bytes, true, false, null);
        } catch (ParseException e) {
            throw new IllegalArgumentException("not SIP: " + new String(bytes, StandardCharsets.ISO_8859_1), e);
        }
    }

    private static Message read(String text) {
        Message message = Message.read(text.getBytes(StandardCharsets.UTF_8));
        if (message == null) {
            throw new IllegalArgumentException("the kept path's reader does not read: " + text);
        }
        return message;
    }
}
