package org.p2psip.lazysip;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Set;

/**
 * A request as the front's fast path reads it: the method, the top Via, Call-ID, CSeq,
 * Max-Forwards, the To tag and the top Route, each read where it lies, nothing else. {@link #read}
 * returns null for anything the splice does not cover or that the front must answer itself (a
 * required header missing or odd, Max-Forwards spent or absent, a body whose length is not the
 * Content-Length), and the request takes JAIN-SIP's path, which stays the reference. The node's
 * UDP intake reads requests the same way to refuse them without the stack ({@link #answer}). Immutable.
 */
public final class LazyRequest {

    /**
     * Methods JAIN-SIP's header check asks more of (an Event, a Subscription-State, a Contact),
     * left to its path; every other method's is the basic one (INVITE's once it has a Contact).
     * An extension method must take this path: JAIN-SIP writes the method of a CSeq it parsed in
     * upper case, so a request it forwarded would name another method in its CSeq than in its
     * request line.
     */
    private static final Set<String> CHECKED = Set.of("NOTIFY", "PUBLISH", "SUBSCRIBE", "REFER");

    public final SipLines lines;
    public final String method;
    public final int topVia;
    public final ViaValue via;
    /** End of the top Via value in the message: the comma before the next value, or the line's end. */
    public final int viaEnd;
    public final String branch;
    public final String callId;
    public final boolean toTag;
    public final int maxForwards;
    public final int maxForwardsHeader;
    public final RouteValue route;

    private LazyRequest(SipLines lines, String method, int topVia, ViaValue via, int viaEnd, String callId,
            boolean toTag, int maxForwardsHeader, int maxForwards, RouteValue route) {
        this.lines = lines;
        this.method = method;
        this.topVia = topVia;
        this.via = via;
        this.viaEnd = viaEnd;
        this.branch = via.param("branch");
        this.callId = callId;
        this.toTag = toTag;
        this.maxForwardsHeader = maxForwardsHeader;
        this.maxForwards = maxForwards;
        this.route = route;
    }

    public static LazyRequest read(byte[] bytes) {
        SipLines lines = SipLines.of(bytes);
        String method = lines == null ? null : method(lines.startLine());
        if (method == null || CHECKED.contains(method) || !token(method) || !lines.lengthAgrees()
                || lines.find("from", 0) < 0 || (method.equals("INVITE") && lines.find("contact", 0) < 0)) {
            return null;
        }
        int v = lines.find("via", 0);
        if (v < 0 || lines.folded[v]) {
            return null;
        }
        ViaValue via = ViaValue.parse(SipLines.firstValue(lines.value(v)));
        String branch = via == null ? null : via.param("branch");
        if (branch == null || !branch.startsWith("z9hG4bK")) {
            return null; // an RFC 2543 branch is seeded from the whole request: JAIN-SIP's path
        }
        String callId = lines.single("call-id");
        int mf = lines.countOf("max-forwards") == 1 ? lines.find("max-forwards", 0) : -1;
        int maxForwards = mf < 0 ? -1 : (int) SipLines.number(lines.value(mf), 255);
        if (callId == null || callId.isEmpty() || hasSpace(callId) || !cseqOf(lines, method) || maxForwards < 1) {
            return null;
        }
        Boolean toTag = ToTag.present(lines.single("to"));
        RouteValue route = RouteValue.top(lines);
        if (toTag == null || route == RouteValue.DOUBTFUL) {
            return null;
        }
        int comma = lines.firstComma(v);
        int viaEnd = comma < 0 ? lines.valueEnd[v] : comma;
        return new LazyRequest(lines, method, v, via, viaEnd, callId, toTag, mf, maxForwards, route);
    }

    /**
     * The request as it goes to the node: the front's Via line first, the client's top Via
     * stamped with where it came from, Max-Forwards one less, the top Route dropped if it named the front.
     */
    public byte[] forwarded(String ownViaLine, InetSocketAddress source, boolean dropRoute) {
        var edits = new ArrayList<ByteEdits.Edit>(4);
        int headers = lines.startLineEnd + 2;
        edits.add(new ByteEdits.Edit(headers, headers, ownViaLine));
        edits.add(new ByteEdits.Edit(lines.valueStart[topVia], viaEnd, " " + via.stamped(source)));
        edits.add(new ByteEdits.Edit(lines.valueStart[maxForwardsHeader], lines.valueEnd[maxForwardsHeader],
                " " + (maxForwards - 1)));
        if (dropRoute && route != null) {
            edits.add(new ByteEdits.Edit(route.removeFrom, route.removeTo, ""));
        }
        return ByteEdits.apply(lines.bytes, edits);
    }

    /** Headers a response copies from its request (RFC 3261 §8.2.6.2), in the request's order. */
    private static final Set<String> ECHOED = Set.of("via", "from", "to", "call-id", "cseq");

    /**
     * A final response of this server's own, written without a parser or a transaction (a
     * stateless answer, RFC 3261 §8.2.7): every Via in order, the top one stamped with where the
     * request came from, From, To with {@code tag} when it had none, Call-ID and CSeq, then
     * {@code extraLines} (each ending in CRLF) and an empty body. {@code tag} must be the same
     * for every retransmission of the request, so that the client sees one answer.
     */
    public byte[] answer(int status, String reason, String tag, InetSocketAddress source, String extraLines) {
        var out = new java.io.ByteArrayOutputStream(lines.bodyStart + extraLines.length() + 64);
        write(out, "SIP/2.0 " + status + " " + reason + "\r\n");
        for (int h = 0; h < lines.count; h++) {
            if (!ECHOED.contains(lines.names[h])) {
                continue;
            }
            if (h == topVia) {
                out.write(lines.bytes, lines.lineStart[h], lines.valueStart[h] - lines.lineStart[h]);
                write(out, " " + via.stamped(source));
                out.write(lines.bytes, viaEnd, lines.lineEnd(h) - viaEnd);
            } else if (lines.names[h].equals("to") && !this.toTag) {
                out.write(lines.bytes, lines.lineStart[h], lines.valueEnd[h] - lines.lineStart[h]);
                write(out, ";tag=" + tag + "\r\n");
            } else {
                out.write(lines.bytes, lines.lineStart[h], lines.lineEnd(h) - lines.lineStart[h]);
            }
        }
        write(out, extraLines + "Content-Length: 0\r\n\r\n");
        return out.toByteArray();
    }

    /** Where a UDP answer goes (RFC 3261 §18.2.2, RFC 3581): the source address, and its port if the client asked with rport. */
    public InetSocketAddress answerAddress(InetSocketAddress source) {
        String rport = via.param("rport");
        int port = rport != null ? source.getPort() : via.port > 0 ? via.port : 5060;
        return new InetSocketAddress(source.getAddress(), port);
    }

    private static void write(java.io.ByteArrayOutputStream out, String text) {
        out.writeBytes(text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    private static String method(String startLine) {
        int sp = startLine.indexOf(' ');
        int sp2 = sp < 0 ? -1 : startLine.indexOf(' ', sp + 1);
        if (sp <= 0 || sp2 < 0 || !startLine.endsWith(" SIP/2.0") || sp2 != startLine.length() - 8) {
            return null;
        }
        return startLine.substring(0, sp);
    }

    /** CSeq is {@code number method}, its method the request's (else JAIN-SIP's path answers 400). */
    private static boolean cseqOf(SipLines lines, String method) {
        String cseq = lines.single("cseq");
        int sp = cseq == null ? -1 : cseq.indexOf(' ');
        return sp > 0 && sp < 11 && SipLines.number(cseq.substring(0, sp), Integer.MAX_VALUE) >= 0
                && cseq.substring(sp + 1).trim().equals(method);
    }

    private static boolean token(String method) {
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128) && "-.!%*_+`'~".indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasSpace(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) <= ' ') {
                return true;
            }
        }
        return false;
    }
}
