package org.p2psip.front.relay;

import java.nio.charset.StandardCharsets;
import org.p2psip.lazysip.SipLines;
import org.p2psip.lazysip.ByteEdits;
import org.p2psip.lazysip.ViaValue;

/**
 * An answer from a node as the fast path reads it: the status, the front's Via on top (its branch
 * and connection parameter), the Via below it, Call-ID and the CSeq method; the answer to the
 * client is the same bytes without the front's Via value. {@link #read} returns null for anything
 * else (the top two Vias not both plain, a header missing or repeated, a Content-Length that is
 * not the body's length), and the answer takes JAIN-SIP's path. Immutable.
 */
final class LazyResponse {

    final SipLines lines;
    final int status;
    final String branch;
    final String connection;
    final ViaValue next;
    final String callId;
    final String method;
    private final int cutFrom;
    private final int cutTo;

    private LazyResponse(SipLines lines, int status, ViaValue top, ViaValue next, String callId, String method,
            int cutFrom, int cutTo) {
        this.lines = lines;
        this.status = status;
        this.branch = top.param("branch");
        this.connection = top.param(Forwarder.CONNECTION_PARAM);
        this.next = next;
        this.callId = callId;
        this.method = method;
        this.cutFrom = cutFrom;
        this.cutTo = cutTo;
    }

    static LazyResponse read(byte[] bytes) {
        SipLines lines = SipLines.of(bytes);
        int status = lines == null ? -1 : status(lines.startLine());
        String callId = status < 0 ? null : lines.single("call-id");
        String cseq = callId == null ? null : lines.single("cseq");
        int sp = cseq == null ? -1 : cseq.indexOf(' ');
        if (sp <= 0 || callId.isEmpty() || !lines.lengthAgrees()) {
            return null;
        }
        int v = lines.find("via", 0);
        if (v < 0 || lines.folded[v]) {
            return null;
        }
        ViaValue top = ViaValue.parse(SipLines.firstValue(lines.value(v)));
        if (top == null || top.param("branch") == null) {
            return null;
        }
        return below(lines, v, top, callId, cseq.substring(sp + 1).trim(), status);
    }

    /** Reads the Via below the front's, in the same line or the next Via line, and where the front's is cut. */
    private static LazyResponse below(SipLines lines, int v, ViaValue top, String callId, String method, int status) {
        String nextText;
        int cutFrom;
        int cutTo;
        int comma = lines.firstComma(v);
        if (comma < 0) {
            int w = lines.find("via", v + 1);
            nextText = w < 0 || lines.folded[w] ? null : SipLines.firstValue(lines.value(w));
            cutFrom = lines.lineStart[v];
            cutTo = lines.lineEnd(v);
        } else {
            // the Via line is not folded (checked in read), so its value after the comma is one piece of bytes
            nextText = SipLines.firstValue(new String(lines.bytes, comma + 1, lines.valueEnd[v] - comma - 1,
                    StandardCharsets.ISO_8859_1).trim());
            cutFrom = lines.valueStart[v];
            cutTo = comma + 1; // the value and its comma go; the space before the next value stays after the colon
        }
        ViaValue next = nextText == null ? null : ViaValue.parse(nextText);
        if (next == null) {
            return null;
        }
        return new LazyResponse(lines, status, top, next, callId, method, cutFrom, cutTo);
    }

    /** The answer without the front's Via. */
    byte[] toClient() {
        return new ByteEdits(lines.bytes, 0).replace(cutFrom, cutTo, "").bytes();
    }

    private static int status(String statusLine) {
        if (!statusLine.startsWith("SIP/2.0 ") || statusLine.length() < 11
                || (statusLine.length() > 11 && statusLine.charAt(11) != ' ')) {
            return -1;
        }
        long code = SipLines.number(statusLine.substring(8, 11), 699);
        return code < 100 ? -1 : (int) code;
    }
}
