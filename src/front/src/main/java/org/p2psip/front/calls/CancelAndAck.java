package org.p2psip.front.calls;

import java.io.ByteArrayOutputStream;

/**
 * The requests a client transaction writes from its INVITE's bytes (RFC 3261 §9.1, §17.1.1.3):
 * its CANCEL and the ACK of a failure answer. Both carry the INVITE's Request-URI, its top Via
 * value only (the same branch, so the next hop matches them to the INVITE), its Route lines,
 * From, Call-ID and CSeq number; the CANCEL the INVITE's To and Max-Forwards 70, the ACK the
 * answer's To (with the tag of whoever refused) and the INVITE's Max-Forwards (70 if it had none).
 * No Contact, no Record-Route, no body. Stateless.
 */
final class CancelAndAck {

    static final int MAX_FORWARDS = 70;

    private CancelAndAck() {
    }

    static Message cancel(Message invite) {
        return write(invite, "CANCEL", invite.line(invite.header("to")), MAX_FORWARDS);
    }

    static Message ack(Message invite, Message answer) {
        int mf = invite.header("max-forwards");
        long maxForwards = mf < 0 ? MAX_FORWARDS : org.p2psip.lazysip.SipLines.number(invite.lines.value(mf), 255);
        return write(invite, "ACK", answer.line(answer.header("to")), maxForwards < 0 ? MAX_FORWARDS : maxForwards);
    }

    private static Message write(Message invite, String method, String toLine, long maxForwards) {
        var out = new ByteArrayOutputStream(invite.lines.bodyStart);
        Answers.write(out, method + " " + invite.requestUri() + " SIP/2.0\r\nVia: " + invite.topViaValue()
                + "\r\nMax-Forwards: " + maxForwards + "\r\n");
        for (int h = 0; h < invite.lines.count; h++) {
            if (invite.lines.names[h].equals("route")) {
                Answers.write(out, invite.line(h));
            }
        }
        Answers.write(out, invite.line(invite.header("from")) + toLine + invite.line(invite.header("call-id"))
                + "CSeq: " + invite.cseq + " " + method + "\r\nContent-Length: 0\r\n\r\n");
        Message request = Message.read(out.toByteArray());
        if (request == null) {
            throw new IllegalStateException("the front wrote a " + method + " it cannot read for " + invite.callId);
        }
        return request;
    }
}
