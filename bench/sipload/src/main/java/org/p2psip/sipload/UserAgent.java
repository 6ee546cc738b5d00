package org.p2psip.sipload;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A phone answering what reaches it on its connection, as a user agent server (RFC 3261 §8.2):
 * INVITE rings (180) and is answered 200 with a small SDP offer's answer, at once or after
 * --ring-ms; ACK needs no answer; CANCEL gets 200, and the INVITE it cancels 487 when it still
 * rings (RFC 3261 §9.2: a CANCEL after the final answer changes nothing); BYE, OPTIONS and every
 * other method get 200. Responses go back over the connection the request came on (RFC 3261
 * §18.2.2), with the phone's To tag, and a dialog's responses carry the phone's Contact and the
 * request's Record-Route (RFC 3261 §12.1.1). Used by the load's one thread only.
 */
final class UserAgent {
    private final Ids ids;
    private final long ringMillis;

    UserAgent(Ids ids, long ringMillis) {
        this.ids = ids;
        this.ringMillis = ringMillis;
    }

    /** Whether an INVITE rings for a while before its 200 (kept on the phone until {@link #ringEnded}). */
    boolean rings() {
        return ringMillis > 0;
    }

    long ringMillis() {
        return ringMillis;
    }

    /** The responses to send now, in order. */
    List<byte[]> answer(Request request, Phone phone) {
        if (phone.uaTag.isEmpty()) {
            phone.uaTag = ids.tag();
        }
        var out = new ArrayList<byte[]>(2);
        switch (request.method()) {
            case "ACK" -> {
                // the end of an INVITE's exchange: nothing to answer
            }
            case "INVITE" -> {
                out.add(response(180, "Ringing", request, phone));
                if (rings()) {
                    phone.ringing().put(request.branch(), request);
                } else {
                    out.add(accept(request, phone));
                }
            }
            case "CANCEL" -> {
                out.add(response(200, "OK", request, phone));
                Request invite = phone.ringing == null ? null : phone.ringing.remove(request.branch());
                if (invite != null) {
                    out.add(response(487, "Request Terminated", invite, phone));
                }
            }
            default -> out.add(response(200, "OK", request, phone));
        }
        return out;
    }

    /** The 200 to an INVITE that rang for --ring-ms; null when a CANCEL ended it first. */
    byte[] ringEnded(Phone phone, String branch) {
        Request invite = phone.ringing == null ? null : phone.ringing.remove(branch);
        return invite == null ? null : accept(invite, phone);
    }

    private static byte[] accept(Request invite, Phone phone) {
        phone.callsAnswered++;
        return response(200, "OK", invite, phone);
    }

    /** A response to {@code request}: its Vias, From, Call-ID and CSeq, its To with the phone's tag. */
    static byte[] response(int status, String reason, Request request, Phone phone) {
        boolean invite = request.method().equals("INVITE");
        var text = new StringBuilder(512).append("SIP/2.0 ").append(status).append(' ').append(reason).append("\r\n");
        for (String via : request.all("via")) {
            text.append("Via: ").append(via).append("\r\n");
        }
        boolean dialog = invite && status > 100 && status < 300;
        if (dialog) {
            for (String route : request.all("record-route")) {
                text.append("Record-Route: ").append(route).append("\r\n");
            }
        }
        String to = request.first("to");
        text.append("From: ").append(request.first("from")).append("\r\n")
                .append("To: ").append(to).append(hasTag(to) ? "" : ";tag=" + phone.uaTag).append("\r\n")
                .append("Call-ID: ").append(request.first("call-id")).append("\r\n")
                .append("CSeq: ").append(request.first("cseq")).append("\r\n");
        if (dialog) {
            text.append("Contact: <").append(phone.contactUri).append(">\r\n");
        }
        text.append("User-Agent: p2psip-sipload\r\n");
        if (invite && status == 200) {
            String sdp = sdp(phone);
            return text.append("Content-Type: application/sdp\r\nContent-Length: ").append(sdp.length())
                    .append("\r\n\r\n").append(sdp).toString().getBytes(StandardCharsets.UTF_8);
        }
        return text.append("Content-Length: 0\r\n\r\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A minimal audio answer (RFC 8866): no media flows, so the port is the discard port. */
    static String sdp(Phone phone) {
        String host = phone.via.host();
        String family = host.indexOf(':') >= 0 ? "IP6" : "IP4";
        return "v=0\r\no=sipload " + phone.callsAnswered + " 1 IN " + family + " " + host + "\r\ns=-\r\nc=IN "
                + family + " " + host + "\r\nt=0 0\r\nm=audio 9 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n";
    }

    private static boolean hasTag(String nameAddr) {
        int close = nameAddr.lastIndexOf('>');
        return nameAddr.substring(close + 1).toLowerCase(Locale.ROOT).contains(";tag=");
    }
}
