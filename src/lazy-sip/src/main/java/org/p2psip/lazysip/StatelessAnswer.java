package org.p2psip.lazysip;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A final response of the server's own to a request that may not be valid SIP (RFC 3261 §8.2.7,
 * statelessly), written from the request's bytes without reading more of it than the lines to
 * copy: every Via line as it came, the first value of the top one stamped with where the request
 * came from when that value reads; From, To (with {@code tag} when it had none), Call-ID and
 * CSeq as they came, when present; then the caller's extra lines and an empty body. It goes
 * where {@link LazyRequest#answerAddress} sends answers when the top Via reads, else back to the
 * source address and port (as with rport): a request whose Via is the defect still hears why.
 * Immutable.
 */
public final class StatelessAnswer {

    /** The response's bytes. */
    public final byte[] message;
    /** Where it goes. */
    public final InetSocketAddress to;

    private StatelessAnswer(byte[] message, InetSocketAddress to) {
        this.message = message;
        this.to = to;
    }

    /**
     * The answer to the request in {@code bytes[offset, offset + length)}, whose head ends in an
     * empty line with every line ending in CRLF ({@link RequestSyntax#check} read it so).
     * {@code tag} must be the same for every retransmission of the request; {@code extraLines}
     * each end in CRLF.
     */
    public static StatelessAnswer of(byte[] bytes, int offset, int length, int status, String reason, String tag,
            InetSocketAddress source, String extraLines) {
        int end = offset + length;
        var out = new ByteArrayOutputStream(Math.min(length, 2048) + 128);
        write(out, "SIP/2.0 " + status + " " + reason + "\r\n");
        InetSocketAddress to = source;
        boolean topVia = true;
        int at = next(bytes, offset, end);
        while (at >= 0 && at < end && bytes[at] != '\r') {
            int lineEnd = headerEnd(bytes, at, end);
            int colon = indexOf(bytes, ':', at, lineEnd);
            String name = colon < 0 ? "" : name(bytes, at, colon);
            if (name.equals("via") && topVia) {
                topVia = false;
                to = writeTopVia(out, bytes, at, colon, lineEnd, source);
            } else if (name.equals("to") && !Boolean.TRUE.equals(ToTag.present(text(bytes, colon + 1, lineEnd)))) {
                out.write(bytes, at, lineEnd - at);
                write(out, ";tag=" + tag + "\r\n");
            } else if (name.equals("via") || name.equals("from") || name.equals("to") || name.equals("call-id")
                    || name.equals("cseq")) {
                out.write(bytes, at, lineEnd + 2 - at);
            }
            at = lineEnd + 2;
        }
        write(out, extraLines + "Content-Length: 0\r\n\r\n");
        return new StatelessAnswer(out.toByteArray(), to);
    }

    /** The top Via line, its first value stamped if it reads (then the answer goes by it); where the answer goes. */
    private static InetSocketAddress writeTopVia(ByteArrayOutputStream out, byte[] bytes, int at, int colon, int lineEnd,
            InetSocketAddress source) {
        int comma = indexOf(bytes, ',', colon + 1, lineEnd);
        int valueEnd = comma < 0 ? lineEnd : comma;
        String first = text(bytes, colon + 1, valueEnd).trim();
        ViaValue via = first.indexOf('\r') < 0 ? ViaValue.parse(first) : null;
        if (via == null) {
            out.write(bytes, at, lineEnd + 2 - at);
            return source;
        }
        out.write(bytes, at, colon + 1 - at);
        write(out, " " + via.stamped(source));
        out.write(bytes, valueEnd, lineEnd + 2 - valueEnd);
        String rport = via.param("rport");
        int port = rport != null ? source.getPort() : via.port > 0 ? via.port : 5060;
        return new InetSocketAddress(source.getAddress(), port);
    }

    /** The first header line: past the request line. */
    private static int next(byte[] bytes, int at, int end) {
        int cr = indexOf(bytes, '\r', at, end);
        return cr < 0 ? -1 : cr + 2;
    }

    /** The CR ending a header and its continuation lines. */
    private static int headerEnd(byte[] bytes, int at, int end) {
        int cr = indexOf(bytes, '\r', at, end);
        while (cr >= 0 && cr + 2 < end && (bytes[cr + 2] == ' ' || bytes[cr + 2] == '\t')) {
            cr = indexOf(bytes, '\r', cr + 2, end);
        }
        return cr < 0 ? end - 2 : cr;
    }

    private static String name(byte[] bytes, int at, int colon) {
        return HeaderNames.full(text(bytes, at, colon).trim().toLowerCase());
    }

    private static int indexOf(byte[] bytes, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private static String text(byte[] bytes, int from, int to) {
        return new String(bytes, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private static void write(ByteArrayOutputStream out, String text) {
        out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
    }
}
