package org.p2psip.lazysip;

/**
 * The top Route of a request, read by hand for the fast path: the host and port of its SIP URI, and
 * the bytes to cut if the front consumes it (the whole line if it holds one value, else the value
 * and its comma). Immutable.
 */
public final class RouteValue {

    /** A top Route the fast path will not judge (quotes, a folded line, no SIP URI, an IPv6 host). */
    public static final RouteValue DOUBTFUL = new RouteValue(null, null, -1, 0, 0);

    /** The URI's user part, or null if it has none. */
    public final String user;
    public final String host;
    /** -1 if the URI has no port. */
    public final int port;
    public final int removeFrom;
    public final int removeTo;

    private RouteValue(String user, String host, int port, int removeFrom, int removeTo) {
        this.user = user;
        this.host = host;
        this.port = port;
        this.removeFrom = removeFrom;
        this.removeTo = removeTo;
    }

    /** The top Route; null if there is none. */
    public static RouteValue top(SipLines lines) {
        int r = lines.find("route", 0);
        if (r < 0) {
            return null;
        }
        String value = lines.value(r);
        if (lines.folded[r] || value.indexOf('"') >= 0) {
            return DOUBTFUL;
        }
        int open = value.indexOf('<');
        int close = value.indexOf('>');
        if (open < 0 || close < open) {
            return DOUBTFUL; // a Route is always name-addr (RFC 3261 §20.34)
        }
        String uri = value.substring(open + 1, close);
        int comma = value.indexOf(',', close);
        if (comma < 0) {
            return at(uri, lines.lineStart[r], lines.lineEnd(r));
        }
        // Cut the first value and its comma: from the value's first byte to the next value's first byte.
        int from = lines.valueStart[r];
        while (lines.bytes[from] == ' ' || lines.bytes[from] == '\t') {
            from++;
        }
        int to = from;
        while (lines.bytes[to] != '>') {
            to++;
        }
        while (lines.bytes[to] != ',') {
            to++;
        }
        to++;
        while (lines.bytes[to] == ' ' || lines.bytes[to] == '\t') {
            to++;
        }
        return at(uri, from, to);
    }

    private static RouteValue at(String uri, int removeFrom, int removeTo) {
        if (!uri.regionMatches(true, 0, "sip:", 0, 4)) {
            return DOUBTFUL;
        }
        String rest = uri.substring(4);
        int end = firstOf(rest, ";?");
        String userHostPort = rest.substring(0, end);
        int at = userHostPort.lastIndexOf('@');
        String user = at < 0 ? null : userHostPort.substring(0, at);
        String hostPort = userHostPort.substring(at + 1);
        if (hostPort.startsWith("[")) {
            return DOUBTFUL;
        }
        int colon = hostPort.indexOf(':');
        String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
        long port = colon < 0 ? -1 : SipLines.number(hostPort.substring(colon + 1), 65535);
        if (host.isEmpty() || (colon >= 0 && port < 0)) {
            return DOUBTFUL;
        }
        return new RouteValue(user, host, (int) port, removeFrom, removeTo);
    }

    private static int firstOf(String text, String chars) {
        for (int i = 0; i < text.length(); i++) {
            if (chars.indexOf(text.charAt(i)) >= 0) {
                return i;
            }
        }
        return text.length();
    }
}
