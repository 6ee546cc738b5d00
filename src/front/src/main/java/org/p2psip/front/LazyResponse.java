package org.p2psip.front;

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
        String callId = status < 0 ? null : LazyRequest.single(lines, "call-id");
        String cseq = callId == null ? null : LazyRequest.single(lines, "cseq");
        String length = cseq == null ? null : LazyRequest.single(lines, "content-length");
        int sp = cseq == null ? -1 : cseq.indexOf(' ');
        if (length == null || sp <= 0 || callId.isEmpty()
                || LazyRequest.number(length, 1 << 20) != lines.bodyLength()) {
            return null;
        }
        int v = lines.find("via", 0);
        if (v < 0 || lines.folded[v]) {
            return null;
        }
        String text = lines.value(v);
        int comma = text.indexOf(',');
        ViaValue top = ViaValue.parse(comma < 0 ? text : text.substring(0, comma).trim());
        if (top == null || top.param("branch") == null) {
            return null;
        }
        return below(lines, v, comma, top, callId, cseq.substring(sp + 1).trim(), status);
    }

    /** Reads the Via below the front's, in the same line or the next Via line, and where the front's is cut. */
    private static LazyResponse below(SipLines lines, int v, int comma, ViaValue top, String callId, String method,
            int status) {
        String nextText;
        int cutFrom;
        int cutTo;
        if (comma < 0) {
            int w = lines.find("via", v + 1);
            nextText = w < 0 || lines.folded[w] ? null : firstValue(lines.value(w));
            cutFrom = lines.lineStart[v];
            cutTo = lines.lineEnd(v);
        } else {
            nextText = firstValue(lines.value(v).substring(comma + 1).trim());
            cutFrom = lines.valueStart[v];
            cutTo = cutFrom;
            while (lines.bytes[cutTo] != ',') {
                cutTo++;
            }
            cutTo++; // the value and its comma go; the space before the next value stays after the colon
        }
        ViaValue next = nextText == null ? null : ViaValue.parse(nextText);
        if (next == null) {
            return null;
        }
        return new LazyResponse(lines, status, top, next, callId, method, cutFrom, cutTo);
    }

    /** The answer without the front's Via. */
    byte[] toClient() {
        return new Splice(lines.bytes, 0).replace(cutFrom, cutTo, "").bytes();
    }

    private static String firstValue(String text) {
        int comma = text.indexOf(',');
        return comma < 0 ? text : text.substring(0, comma).trim();
    }

    private static int status(String statusLine) {
        if (!statusLine.startsWith("SIP/2.0 ") || statusLine.length() < 11
                || (statusLine.length() > 11 && statusLine.charAt(11) != ' ')) {
            return -1;
        }
        long code = LazyRequest.number(statusLine.substring(8, 11), 699);
        return code < 100 ? -1 : (int) code;
    }
}
