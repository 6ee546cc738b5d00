package org.p2psip.front.calls;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A response of the front's own, written from the bytes of the request it answers (RFC 3261
 * §8.2.6): every Via line as it came, in order (the request's top Via already carries
 * {@code received} and {@code rport}), From, To (with the front's tag when it had none and a tag
 * is given), Call-ID and CSeq as they came, the Timestamp in a 100 (§8.2.6.1), then the caller's
 * extra lines and an empty body. Stateless.
 */
final class Answers {

    private Answers() {
    }

    /**
     * The answer {@code status reason} to {@code request}; {@code tag} null leaves To without one
     * (a 100 is hop by hop), {@code extraLines} each end in CRLF.
     */
    static Message of(Message request, int status, String reason, String tag, String extraLines) {
        var out = new ByteArrayOutputStream(request.lines.bodyStart + extraLines.length() + 64);
        write(out, "SIP/2.0 " + status + " " + reason + "\r\n");
        boolean addTag = tag != null && !request.toTag();
        for (int h = 0; h < request.lines.count; h++) {
            String name = request.lines.names[h];
            if (name.equals("to") && addTag) {
                int start = request.lines.lineStart[h];
                out.write(request.bytes, start, request.lines.valueEnd[h] - start);
                write(out, ";tag=" + tag + "\r\n");
            } else if (copied(name, status)) {
                int start = request.lines.lineStart[h];
                out.write(request.bytes, start, request.lines.lineEnd(h) - start);
            }
        }
        write(out, extraLines + "Content-Length: 0\r\n\r\n");
        Message answer = Message.read(out.toByteArray());
        if (answer == null) {
            throw new IllegalStateException("the front wrote an answer it cannot read to " + request.callId);
        }
        return answer;
    }

    private static boolean copied(String name, int status) {
        return switch (name) {
            case "via", "from", "to", "call-id", "cseq" -> true;
            case "timestamp" -> status == 100;
            default -> false;
        };
    }

    static void write(ByteArrayOutputStream out, String text) {
        out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
    }
}
