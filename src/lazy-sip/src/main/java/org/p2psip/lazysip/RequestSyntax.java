package org.p2psip.lazysip;

/**
 * Whether a request is valid SIP (RFC 3261 §7, §8.1.1, §19.1, §20, §25), read from its bytes in
 * one pass, without a parser and without a regular expression: the request line, the line
 * structure of the head, the required headers (Via, From, To, Call-ID, CSeq) and the syntax of
 * those and of Max-Forwards, Content-Length and Contact, whose values the stack and the
 * registrar rely on. Every other header passes unread, as the proxy passes it on. The node's UDP
 * intake and the front ask it before anything else reads a request, so that both refuse the same
 * requests with the same answer ({@link Defect}), whatever JAIN-SIP's parser would have made of
 * them (it reads any version as 2.0, keeps a header it cannot read as if it were absent, answers
 * some defects with its exception's text as the reason phrase and others not at all).
 *
 * <p>It is strict where RFC 3261's grammar is and RFC 4475 calls a message invalid; it accepts
 * what that grammar allows however odd (folding, runs of white space, compact forms, escapes,
 * quoted pairs, any token as a method). What it cannot be sure to read the same way as the stack
 * - a bare LF or CR in the head, a head without its empty line - it leaves alone: {@link #check}
 * answers null and the stack judges. One per request, not thread-safe; {@link #check} makes it.
 */
public final class RequestSyntax {

    private static final boolean[] TOKEN = chars("-.!%*_+`'~");
    /** Characters of a sip URI's parameters: unreserved, escaped, param-unreserved (RFC 3261 §25.1). */
    private static final boolean[] PARAM = chars("-_.!~*'()%[]/:&+$");
    /** Characters of a sip URI's headers: unreserved, escaped, hnv-unreserved, = and &. */
    private static final boolean[] HEADER = chars("-_.!~*'()%[]/?:+$=&");
    private static final boolean[] HOST = chars("-._");
    private static final long BELOW_2_TO_THE_31 = 1L << 31;

    private enum Kind { OTHER, VIA, FROM, TO, CALL_ID, CSEQ, MAX_FORWARDS, CONTENT_LENGTH, CONTACT }

    private static final int KINDS = Kind.values().length;

    private final byte[] b;
    private final int end;
    /** Whether the body's length is judged: over UDP; on a stream Content-Length is what frames it. */
    private final boolean datagram;
    private int methodStart;
    private int methodEnd;
    private Defect lineDefect;
    private Defect headerDefect;
    private Defect valueDefect;
    private final int[] counts = new int[KINDS];
    private long contentLength = -1;

    private RequestSyntax(byte[] bytes, int end, boolean datagram) {
        this.b = bytes;
        this.end = end;
        this.datagram = datagram;
    }

    /**
     * The first defect of the request in {@code bytes[offset, offset + length)} (a datagram:
     * what follows the head is the body), or null when it is valid SIP or when the head cannot be
     * read with certainty. {@link Defect#MISSING_VIA} comes before every other, since a request
     * without a Via cannot be answered; then the request line's, a header line's, a required
     * header missing or repeated, the first header value that does not read, a body shorter than
     * its Content-Length.
     */
    public static Defect check(byte[] bytes, int offset, int length) {
        return new RequestSyntax(bytes, offset + length, true).read(offset);
    }

    /**
     * {@link #check} for a request read from a stream (TCP, TLS), whose Content-Length is what
     * framed its body, or for its head alone: whatever follows the head is not held against
     * Content-Length.
     */
    public static Defect checkStreamed(byte[] bytes, int offset, int length) {
        return new RequestSyntax(bytes, offset + length, false).read(offset);
    }

    private Defect read(int start) {
        int lineEnd = lineEnd(start);
        if (lineEnd < 0) {
            return null;
        }
        lineDefect = requestLine(start, lineEnd);
        Kind kind = null;
        int valueStart = 0;
        int valueEnd = 0;
        int at = lineEnd + 2;
        while (true) {
            int e = lineEnd(at);
            if (e < 0) {
                return null; // a bare LF or CR, or no empty line: the stack decides what the head is
            }
            if (e == at) {
                finish(kind, valueStart, valueEnd);
                at += 2;
                break;
            }
            if (b[at] == ' ' || b[at] == '\t') {
                if (kind == null) {
                    noteHeader(Defect.MALFORMED_HEADER_LINE); // a continuation of the request line
                }
                valueEnd = e;
            } else {
                finish(kind, valueStart, valueEnd);
                int colon = at;
                while (colon < e && b[colon] != ':') {
                    colon++;
                }
                int nameEnd = colon;
                while (nameEnd > at && (b[nameEnd - 1] == ' ' || b[nameEnd - 1] == '\t')) {
                    nameEnd--;
                }
                if (colon == e || nameEnd == at || token(at, nameEnd) != nameEnd) {
                    noteHeader(Defect.MALFORMED_HEADER_LINE);
                    kind = Kind.OTHER;
                } else {
                    kind = kindOf(at, nameEnd);
                }
                valueStart = colon + 1;
                valueEnd = e;
            }
            at = e + 2;
        }
        return verdict(end - at);
    }

    private Defect verdict(int bodyLength) {
        if (counts[Kind.VIA.ordinal()] == 0) {
            return Defect.MISSING_VIA;
        }
        if (lineDefect != null) {
            return lineDefect;
        }
        if (headerDefect != null) {
            return headerDefect;
        }
        Defect required = once(Kind.FROM, Defect.MISSING_FROM, Defect.MULTIPLE_FROM);
        required = required != null ? required : once(Kind.TO, Defect.MISSING_TO, Defect.MULTIPLE_TO);
        required = required != null ? required : once(Kind.CALL_ID, Defect.MISSING_CALL_ID, Defect.MULTIPLE_CALL_ID);
        required = required != null ? required : once(Kind.CSEQ, Defect.MISSING_CSEQ, Defect.MULTIPLE_CSEQ);
        if (required != null) {
            return required;
        }
        if (counts[Kind.MAX_FORWARDS.ordinal()] > 1) {
            return Defect.MULTIPLE_MAX_FORWARDS;
        }
        if (counts[Kind.CONTENT_LENGTH.ordinal()] > 1) {
            return Defect.MULTIPLE_CONTENT_LENGTH;
        }
        if (valueDefect != null) {
            return valueDefect;
        }
        return datagram && contentLength > bodyLength ? Defect.BODY_SHORTER_THAN_CONTENT_LENGTH : null;
    }

    private Defect once(Kind kind, Defect missing, Defect repeated) {
        int n = counts[kind.ordinal()];
        return n == 0 ? missing : n > 1 ? repeated : null;
    }

    private void noteHeader(Defect defect) {
        if (headerDefect == null) {
            headerDefect = defect;
        }
    }

    private void noteValue(Defect defect) {
        if (valueDefect == null) {
            valueDefect = defect;
        }
    }

    /** Counts a header whose value is [s, e) and checks the value of the first of each kind. */
    private void finish(Kind kind, int s, int e) {
        if (kind == null || kind == Kind.OTHER) {
            return;
        }
        int n = ++counts[kind.ordinal()];
        switch (kind) {
            case VIA -> {
                if (!via(s, e)) {
                    noteValue(Defect.MALFORMED_VIA);
                }
            }
            case CONTACT -> {
                if (!address(s, e, true)) {
                    noteValue(Defect.MALFORMED_CONTACT);
                }
            }
            case FROM -> {
                if (n == 1 && !address(s, e, false)) {
                    noteValue(Defect.MALFORMED_FROM);
                }
            }
            case TO -> {
                if (n == 1 && !address(s, e, false)) {
                    noteValue(Defect.MALFORMED_TO);
                }
            }
            case CALL_ID -> {
                if (n == 1 && !callId(s, e)) {
                    noteValue(Defect.INVALID_CALL_ID);
                }
            }
            case CSEQ -> {
                Defect defect = n == 1 ? cseq(s, e) : null;
                if (defect != null) {
                    noteValue(defect);
                }
            }
            case MAX_FORWARDS -> {
                if (n == 1 && number(s, e, 255) < 0) {
                    noteValue(Defect.INVALID_MAX_FORWARDS);
                }
            }
            case CONTENT_LENGTH -> {
                if (n == 1) {
                    contentLength = number(s, e, Long.MAX_VALUE);
                    if (contentLength < 0) {
                        noteValue(Defect.INVALID_CONTENT_LENGTH);
                    }
                }
            }
            default -> throw new IllegalStateException(kind.name());
        }
    }

    // ---------------------------------------------------------------- the request line

    private Defect requestLine(int s, int e) {
        int sp1 = indexOf(' ', s, e);
        if (sp1 <= s || token(s, sp1) != sp1) {
            return Defect.MALFORMED_REQUEST_LINE;
        }
        methodStart = s;
        methodEnd = sp1;
        int sp2 = indexOf(' ', sp1 + 1, e);
        if (sp2 < 0 || sp2 == sp1 + 1 || sp2 + 1 == e || indexOf(' ', sp2 + 1, e) >= 0 || !version(sp2 + 1, e)) {
            return Defect.MALFORMED_REQUEST_LINE;
        }
        if (e - sp2 - 1 != 7 || b[sp2 + 5] != '2' || b[sp2 + 6] != '.' || b[sp2 + 7] != '0') {
            return Defect.VERSION_NOT_SUPPORTED;
        }
        int colon = scheme(sp1 + 1, sp2);
        if (colon < 0) {
            return Defect.MALFORMED_REQUEST_URI;
        }
        if (!sipScheme(sp1 + 1, colon)) {
            return Defect.UNSUPPORTED_URI_SCHEME;
        }
        return sipUri(colon + 1, sp2, false) ? null : Defect.MALFORMED_REQUEST_URI;
    }

    /** {@code SIP/1*DIGIT.1*DIGIT}, "SIP" in any case (RFC 3261 §7.1). */
    private boolean version(int s, int e) {
        if (e - s < 7 || (b[s] | 0x20) != 's' || (b[s + 1] | 0x20) != 'i' || (b[s + 2] | 0x20) != 'p' || b[s + 3] != '/') {
            return false;
        }
        int p = digits(s + 4, e);
        if (p == s + 4 || p >= e || b[p] != '.') {
            return false;
        }
        int q = digits(p + 1, e);
        return q > p + 1 && q == e;
    }

    // ---------------------------------------------------------------- URIs

    /** Index of the colon ending a URI scheme at s (ALPHA *(ALPHA / DIGIT / + / - / .)), or -1. */
    private int scheme(int s, int e) {
        if (s >= e || !alpha(b[s])) {
            return -1;
        }
        int p = s + 1;
        while (p < e && (alpha(b[p]) || digit(b[p]) || b[p] == '+' || b[p] == '-' || b[p] == '.')) {
            p++;
        }
        return p < e && b[p] == ':' ? p : -1;
    }

    private boolean sipScheme(int s, int colon) {
        return (colon - s == 3 || (colon - s == 4 && (b[s + 3] | 0x20) == 's'))
                && (b[s] | 0x20) == 's' && (b[s + 1] | 0x20) == 'i' && (b[s + 2] | 0x20) == 'p';
    }

    /** A URI in a header: sip and sips read in full, any other scheme only for characters no URI holds. */
    private boolean uri(int s, int e, boolean enclosed) {
        int colon = scheme(s, e);
        if (colon < 0) {
            return false;
        }
        if (sipScheme(s, colon)) {
            return sipUri(colon + 1, e, enclosed);
        }
        if (colon + 1 == e) {
            return false;
        }
        for (int p = colon + 1; p < e; p++) {
            byte c = b[p];
            if (c <= ' ' || c == 0x7F || c == '<' || c == '>' || c == '"' || (!enclosed && c == '?')) {
                return false;
            }
        }
        return true;
    }

    /**
     * What follows {@code sip:}: [userinfo @] host [: port] *(; param) [? headers] (RFC 3261
     * §19.1.1). The user part is what precedes the last @ (it may hold ; and ? and escapes); its
     * characters are not checked beyond those no URI may hold. Headers only where allowed: in a
     * name-addr, never in a Request-URI or an addr-spec outside angle brackets.
     */
    private boolean sipUri(int s, int e, boolean headersAllowed) {
        int at = -1;
        for (int p = s; p < e; p++) {
            byte c = b[p];
            if (c <= ' ' || c == 0x7F || c == '<' || c == '>' || c == '"') {
                return false;
            }
            if (c == '@') {
                at = p;
            }
        }
        if (at == s) {
            return false;
        }
        int p = hostport(at < 0 ? s : at + 1, e, false);
        if (p < 0) {
            return false;
        }
        while (p < e && b[p] == ';') {
            int q = run(PARAM, p + 1, e);
            if (q == p + 1) {
                return false;
            }
            p = q;
            if (p < e && b[p] == '=') {
                q = run(PARAM, p + 1, e);
                if (q == p + 1) {
                    return false;
                }
                p = q;
            }
        }
        if (p < e && b[p] == '?') {
            if (!headersAllowed) {
                return false;
            }
            p = run(HEADER, p + 1, e);
        }
        return p == e;
    }

    /**
     * host [: port] at s, an IPv6 reference in brackets or a name or IPv4 address; white space
     * around the colon only where {@code lws} (a Via's sent-by). Where it ends, or -1.
     */
    private int hostport(int s, int e, boolean lws) {
        int p = s;
        if (p < e && b[p] == '[') {
            p++;
            while (p < e && (hex(b[p]) || b[p] == ':' || b[p] == '.')) {
                p++;
            }
            if (p >= e || b[p] != ']' || p == s + 1) {
                return -1;
            }
            p++;
        } else {
            p = run(HOST, p, e);
            if (p == s) {
                return -1;
            }
        }
        int q = lws ? skipLws(p, e) : p;
        if (q < e && b[q] == ':') {
            q = lws ? skipLws(q + 1, e) : q + 1;
            int r = digits(q, e);
            if (r == q || r - q > 5 || number(q, r) > 65535) {
                return -1;
            }
            return r;
        }
        return p;
    }

    // ---------------------------------------------------------------- header values

    /** Via: comma-separated {@code protocol / version / transport LWS sent-by *(; param)} (RFC 3261 §20.42). */
    private boolean via(int s, int e) {
        int p = skipLws(s, e);
        while (true) {
            for (int part = 0; part < 3; part++) {
                int t = token(p, e);
                if (t == p) {
                    return false;
                }
                p = skipLws(t, e);
                if (part < 2) {
                    if (p >= e || b[p] != '/') {
                        return false;
                    }
                    p = skipLws(p + 1, e);
                } else if (p == t) {
                    return false; // LWS before sent-by
                }
            }
            p = hostport(p, e, true);
            if (p < 0 || (p = params(p, e)) < 0) {
                return false;
            }
            int q = skipLws(p, e);
            if (q == e) {
                return true;
            }
            if (b[q] != ',') {
                return false;
            }
            p = skipLws(q + 1, e);
        }
    }

    /**
     * From, To (one value) or Contact (* or comma-separated values): each a name-addr (an
     * optional display name of tokens or a quoted string, then a URI in angle brackets without
     * white space inside) or an addr-spec (a URI without ?, ; or , ), then parameters
     * (RFC 3261 §20.10, §25.1).
     */
    private boolean address(int s, int e, boolean list) {
        int p = skipLws(s, e);
        if (list && p < e && b[p] == '*') {
            return skipLws(p + 1, e) == e;
        }
        while (true) {
            if (p >= e) {
                return false;
            }
            boolean spec = false;
            if (b[p] == '"') {
                p = quoted(p, e);
                if (p < 0) {
                    return false;
                }
                p = skipLws(p, e);
            } else if (b[p] != '<') {
                int t = token(p, e);
                if (t > p && t < e && b[t] == ':') {
                    p = addrSpec(p, e); // a scheme: no display name, no angle brackets
                    if (p < 0) {
                        return false;
                    }
                    spec = true;
                } else {
                    if (t == p) {
                        return false;
                    }
                    p = skipLws(t, e);
                    while (p < e && token(p, e) > p) { // display-name = *(token LWS)
                        p = skipLws(token(p, e), e);
                    }
                }
            }
            if (!spec) {
                if (p >= e || b[p] != '<') {
                    return false; // a display name not followed by <
                }
                p = nameAddr(p, e);
                if (p < 0) {
                    return false;
                }
            }
            p = params(p, e);
            if (p < 0) {
                return false;
            }
            int q = skipLws(p, e);
            if (q == e) {
                return true;
            }
            if (!list || b[q] != ',') {
                return false;
            }
            p = skipLws(q + 1, e);
        }
    }

    /** The URI in angle brackets at p; where it ends (past the >), or -1. */
    private int nameAddr(int p, int e) {
        int gt = p + 1;
        while (gt < e && b[gt] != '>') {
            byte c = b[gt];
            if (c <= ' ' || c == '<' || c == '"') {
                return -1;
            }
            gt++;
        }
        return gt < e && uri(p + 1, gt, true) ? gt + 1 : -1;
    }

    /** A URI without angle brackets, which ends at ; , or white space; where it ends, or -1. */
    private int addrSpec(int p, int e) {
        int u = p;
        while (u < e && b[u] != ';' && b[u] != ',' && !lws(b[u])) {
            u++;
        }
        return uri(p, u, false) ? u : -1;
    }

    /** *( SEMI name [ EQUAL value ] ), value a token, a host or a quoted string; where it ends, or -1. */
    private int params(int p, int e) {
        while (true) {
            int q = skipLws(p, e);
            if (q >= e || b[q] != ';') {
                return p;
            }
            q = skipLws(q + 1, e);
            int n = token(q, e);
            if (n == q) {
                return -1;
            }
            p = n;
            q = skipLws(n, e);
            if (q < e && b[q] == '=') {
                q = skipLws(q + 1, e);
                if (q < e && b[q] == '"') {
                    p = quoted(q, e);
                    if (p < 0) {
                        return -1;
                    }
                } else {
                    int v = q;
                    while (q < e && (tokenChar(b[q]) || b[q] == ':' || b[q] == '[' || b[q] == ']')) {
                        q++;
                    }
                    if (q == v) {
                        return -1;
                    }
                    p = q;
                }
            }
        }
    }

    /** word [@ word]: here, any visible characters but a comma; no white space inside. */
    private boolean callId(int s, int e) {
        int p = skipLws(s, e);
        int q = e;
        while (q > p && lws(b[q - 1])) {
            q--;
        }
        if (q == p) {
            return false;
        }
        for (int i = p; i < q; i++) {
            if (b[i] <= ' ' && b[i] >= 0 || b[i] == 0x7F || b[i] == ',') {
                return false;
            }
        }
        return true;
    }

    /** 1*DIGIT LWS Method, the number below 2**31, the method the request line's. */
    private Defect cseq(int s, int e) {
        int p = skipLws(s, e);
        int d = digits(p, e);
        if (d == p || d - p > 10 || number(p, d) >= BELOW_2_TO_THE_31) {
            return Defect.INVALID_CSEQ;
        }
        int m = skipLws(d, e);
        int t = token(m, e);
        if (m == d || t == m || skipLws(t, e) != e) {
            return Defect.INVALID_CSEQ;
        }
        if (methodEnd > methodStart && !same(m, t, methodStart, methodEnd)) {
            return Defect.CSEQ_METHOD_MISMATCH;
        }
        return null;
    }

    /** The value as a number no larger than max (longer ones are max + 1), or -1 if it is none. */
    private long number(int s, int e, long max) {
        int p = skipLws(s, e);
        int d = digits(p, e);
        if (d == p || skipLws(d, e) != e) {
            return -1;
        }
        long n = d - p > 18 ? Long.MAX_VALUE : number(p, d);
        return n > max ? (max == Long.MAX_VALUE ? n : -1) : n;
    }

    // ---------------------------------------------------------------- bytes

    /** The CR of the CRLF ending the line at {@code at}; -1 if a bare LF or CR comes first, or no line end. */
    private int lineEnd(int at) {
        for (int i = at; i < end; i++) {
            if (b[i] == '\n') {
                return -1;
            }
            if (b[i] == '\r') {
                return i + 1 < end && b[i + 1] == '\n' ? i : -1;
            }
        }
        return -1;
    }

    private Kind kindOf(int s, int e) {
        return switch (e - s) {
            case 1 -> switch (b[s] | 0x20) {
                case 'v' -> Kind.VIA;
                case 'f' -> Kind.FROM;
                case 't' -> Kind.TO;
                case 'i' -> Kind.CALL_ID;
                case 'l' -> Kind.CONTENT_LENGTH;
                case 'm' -> Kind.CONTACT;
                default -> Kind.OTHER;
            };
            case 2 -> named(s, "to") ? Kind.TO : Kind.OTHER;
            case 3 -> named(s, "via") ? Kind.VIA : Kind.OTHER;
            case 4 -> named(s, "from") ? Kind.FROM : named(s, "cseq") ? Kind.CSEQ : Kind.OTHER;
            case 7 -> named(s, "call-id") ? Kind.CALL_ID : named(s, "contact") ? Kind.CONTACT : Kind.OTHER;
            case 12 -> named(s, "max-forwards") ? Kind.MAX_FORWARDS : Kind.OTHER;
            case 14 -> named(s, "content-length") ? Kind.CONTENT_LENGTH : Kind.OTHER;
            default -> Kind.OTHER;
        };
    }

    /** Whether the bytes at s are {@code name} (lower case) in any case. */
    private boolean named(int s, String name) {
        for (int i = 0; i < name.length(); i++) {
            if ((b[s + i] | 0x20) != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private boolean same(int s1, int e1, int s2, int e2) {
        if (e1 - s1 != e2 - s2) {
            return false;
        }
        for (int i = 0; i < e1 - s1; i++) {
            if (b[s1 + i] != b[s2 + i]) {
                return false;
            }
        }
        return true;
    }

    /** Past white space, a folded line's CRLF included (inside a value every CR starts a fold). */
    private int skipLws(int p, int e) {
        while (p < e) {
            if (b[p] == ' ' || b[p] == '\t') {
                p++;
            } else if (b[p] == '\r') {
                p += 2;
            } else {
                break;
            }
        }
        return Math.min(p, e);
    }

    /** Past a quoted string at p (its quoted pairs included); -1 if it is not closed. */
    private int quoted(int p, int e) {
        for (int i = p + 1; i < e; i++) {
            if (b[i] == '\\') {
                i++;
            } else if (b[i] == '"') {
                return i + 1;
            }
        }
        return -1;
    }

    private int token(int p, int e) {
        while (p < e && tokenChar(b[p])) {
            p++;
        }
        return p;
    }

    private int run(boolean[] allowed, int p, int e) {
        while (p < e && b[p] >= 0 && (allowed[b[p]])) {
            p++;
        }
        return p;
    }

    private int digits(int p, int e) {
        while (p < e && digit(b[p])) {
            p++;
        }
        return p;
    }

    private long number(int s, int e) {
        long n = 0;
        for (int i = s; i < e; i++) {
            n = n * 10 + (b[i] - '0');
        }
        return n;
    }

    private int indexOf(char c, int s, int e) {
        for (int i = s; i < e; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private static boolean tokenChar(byte c) {
        return c >= 0 && TOKEN[c];
    }

    private static boolean lws(byte c) {
        return c == ' ' || c == '\t' || c == '\r';
    }

    private static boolean alpha(byte c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static boolean hex(byte c) {
        return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    /** Letters, digits and the given characters. */
    private static boolean[] chars(String others) {
        boolean[] set = new boolean[128];
        for (char c = '0'; c <= '9'; c++) {
            set[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            set[c] = true;
            set[c - 32] = true;
        }
        for (char c : others.toCharArray()) {
            set[c] = true;
        }
        return set;
    }
}
