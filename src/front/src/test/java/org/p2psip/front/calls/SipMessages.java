package org.p2psip.front.calls;

import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.parser.StringMsgParser;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;

/** Requests as the front sends them on (its Via on top, the caller's below, two Routes) and their answers. */
final class SipMessages {

    static final String TOP_BRANCH = "z9hG4bK-p2psip-f1";

    private SipMessages() {
    }

    static SIPRequest invite() {
        return request("INVITE", 314, "Contact: <sip:alice@10.0.0.1:5060>\r\n"
                + "Record-Route: <sip:rr@10.0.0.7;lr>\r\nTimestamp: 54\r\n");
    }

    static SIPRequest request(String method, long cseq) {
        return request(method, cseq, "");
    }

    private static SIPRequest request(String method, long cseq, String extra) {
        String text = method + " sip:bob@example.com SIP/2.0\r\n"
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
        return (SIPRequest) parse(text);
    }

    /** The answer a next hop gives {@code request}, its To tagged {@code toTag} (none if null). */
    static SIPResponse answer(SIPRequest request, int status, String toTag) {
        SIPResponse response = request.createResponse(status);
        if (toTag != null) {
            try {
                response.getTo().setTag(toTag);
            } catch (ParseException e) {
                throw new IllegalArgumentException(e);
            }
        }
        return response;
    }

    private static Object parse(String text) {
        try {
            return new StringMsgParser().parseSIPMessage(text.getBytes(StandardCharsets.UTF_8), true, false, null);
        } catch (ParseException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
