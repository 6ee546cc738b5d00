package org.p2psip.front.calls;

import java.nio.charset.StandardCharsets;
import org.p2psip.lazysip.SipLines;
import org.p2psip.lazysip.ToTag;
import org.p2psip.lazysip.ViaValue;

/**
 * A SIP message as the kept path reads it, where it lies: the start line (a request's method and
 * Request-URI, an answer's status), the top Via (its first value, unfolded, plain: {@link ViaValue}),
 * Call-ID, the CSeq number and method, and the To tag when asked. Every other header stays bytes:
 * what the front forwards is spliced from them ({@link Splices}),
 * what it writes itself is copied from them ({@link Answers}, {@link Acks}). {@link #read} returns
 * null for a message it is not sure of; the caller then has JAIN-SIP's parser read it and writes it
 * out again for this reader, or does not keep the call. Immutable.
 */
public final class Message {

    final byte[] bytes;
    final SipLines lines;
    /** The request's method, or null for an answer. */
    final String method;
    /** The answer's status, or 0 for a request. */
    final int status;
    /** Where a request's Request-URI lies in {@link #bytes}. */
    final int uriStart;
    final int uriEnd;
    /** The index of the first Via header line in {@link #lines}. */
    final int topVia;
    final ViaValue via;
    /** End of the top Via value: the comma before the next value, or the line's end. */
    final int viaEnd;
    /** The top Via's branch, or null. */
    final String branch;
    final String callId;
    final long cseq;
    final String cseqMethod;

    private Message(byte[] bytes, SipLines lines, String method, int status, int uriStart, int uriEnd, int topVia,
            ViaValue via, int viaEnd, String callId, long cseq, String cseqMethod) {
        this.bytes = bytes;
        this.lines = lines;
        this.method = method;
        this.status = status;
        this.uriStart = uriStart;
        this.uriEnd = uriEnd;
        this.topVia = topVia;
        this.via = via;
        this.viaEnd = viaEnd;
        this.branch = via.param("branch");
        this.callId = callId;
        this.cseq = cseq;
        this.cseqMethod = cseqMethod;
    }

    /** The message in {@code bytes}, or null if its start line, top Via, From, To, Call-ID, CSeq or Content-Length does not read. */
    public static Message read(byte[] bytes) {
        SipLines lines = SipLines.of(bytes);
        if (lines == null || !lines.lengthAgrees()) {
            return null;
        }
        int v = lines.find("via", 0);
        ViaValue via = v < 0 || lines.folded[v] ? null : ViaValue.parse(SipLines.firstValue(lines.value(v)));
        String callId = lines.single("call-id");
        String cseq = lines.single("cseq");
        int sp = cseq == null ? -1 : cseq.indexOf(' ');
        long number = sp <= 0 ? -1 : SipLines.number(cseq.substring(0, sp), Integer.MAX_VALUE);
        if (via == null || callId == null || callId.isEmpty() || number < 0 || lines.find("from", 0) < 0
                || lines.find("to", 0) < 0) {
            return null;
        }
        String cseqMethod = cseq.substring(sp + 1).trim();
        int comma = lines.firstComma(v);
        int viaEnd = comma < 0 ? lines.valueEnd[v] : comma;
        if (startsWith(bytes, "SIP/2.0 ")) {
            int status = bytes.length > 11 ? (int) SipLines.number(text(bytes, 8, 11), 699) : -1;
            return status < 100 ? null
                    : new Message(bytes, lines, null, status, 0, 0, v, via, viaEnd, callId, number, cseqMethod);
        }
        int sp1 = indexOf(bytes, ' ', 0, lines.startLineEnd);
        int sp2 = sp1 < 0 ? -1 : indexOf(bytes, ' ', sp1 + 1, lines.startLineEnd);
        if (sp1 <= 0 || sp2 <= sp1 + 1 || !text(bytes, sp2, lines.startLineEnd).equals(" SIP/2.0")) {
            return null;
        }
        return new Message(bytes, lines, text(bytes, 0, sp1), 0, sp1 + 1, sp2, v, via, viaEnd, callId, number,
                cseqMethod);
    }

    /** The bytes as they go on the wire; never to be changed. */
    public byte[] bytes() {
        return bytes;
    }

    boolean request() {
        return method != null;
    }

    String requestUri() {
        return text(bytes, uriStart, uriEnd);
    }

    /** Whether To has a tag; false if the To does not read. */
    boolean toTag() {
        return Boolean.TRUE.equals(ToTag.present(lines.single("to")));
    }

    /** The first line of header {@code name} (full, lower case), or -1. */
    int header(String name) {
        return lines.find(name, 0);
    }

    /** Header {@code h}'s whole line, its CRLF and continuation lines included. */
    String line(int h) {
        return text(bytes, lines.lineStart[h], lines.lineEnd(h));
    }

    /** The top Via value as it came (the front's own on what it sent). */
    String topViaValue() {
        return text(bytes, lines.valueStart[topVia], viaEnd).trim();
    }

    @Override
    public String toString() {
        return text(bytes, 0, bytes.length);
    }

    static String text(byte[] bytes, int from, int to) {
        return new String(bytes, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private static boolean startsWith(byte[] bytes, String prefix) {
        return bytes.length >= prefix.length() && text(bytes, 0, prefix.length()).equals(prefix);
    }

    private static int indexOf(byte[] bytes, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
