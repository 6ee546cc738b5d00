package org.p2psip.lazysip;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A SIP message cut into its start line, its header lines and its body, without reading any value:
 * the front reads only the few headers forwarding needs, where they are, as Kamailio does. Names are
 * kept lower case with compact forms expanded. A continuation line (header folding) belongs to
 * the header above it. Anything it is not sure of (a bare LF, no empty line, a line that is no
 * header) makes {@link #of} return null, and the caller takes JAIN-SIP's full parser instead.
 * Not thread-safe; one per message.
 */
public final class SipLines {

    public final byte[] bytes;
    /** End of the start line (its CR). */
    public final int startLineEnd;
    /** First byte of the body, just past the empty line. */
    public int bodyStart;
    public int count;
    public String[] names = new String[16];
    public int[] lineStart = new int[16];
    public int[] valueStart = new int[16];
    /** Where a header's value ends (its last line's CR); its line ends 2 bytes later. */
    public int[] valueEnd = new int[16];
    public boolean[] folded = new boolean[16];

    private SipLines(byte[] bytes, int startLineEnd) {
        this.bytes = bytes;
        this.startLineEnd = startLineEnd;
    }

    public static SipLines of(byte[] bytes) {
        int end = lineEnd(bytes, 0);
        if (end <= 0) {
            return null;
        }
        var lines = new SipLines(bytes, end);
        return lines.readHeaders(end + 2) ? lines : null;
    }

    private boolean readHeaders(int at) {
        while (true) {
            int end = lineEnd(bytes, at);
            if (end < 0) {
                return false;
            }
            if (end == at) {
                bodyStart = at + 2;
                return true;
            }
            byte first = bytes[at];
            if (first == ' ' || first == '\t') {
                if (count == 0) {
                    return false;
                }
                folded[count - 1] = true;
                valueEnd[count - 1] = end;
            } else if (!addHeader(at, end)) {
                return false;
            }
            at = end + 2;
        }
    }

    private boolean addHeader(int at, int end) {
        int colon = at;
        while (colon < end && bytes[colon] != ':') {
            colon++;
        }
        int nameEnd = colon;
        while (nameEnd > at && (bytes[nameEnd - 1] == ' ' || bytes[nameEnd - 1] == '\t')) {
            nameEnd--;
        }
        if (colon == end || nameEnd == at) {
            return false;
        }
        if (count == names.length) {
            grow();
        }
        String name = new String(bytes, at, nameEnd - at, StandardCharsets.ISO_8859_1).toLowerCase();
        names[count] = HeaderNames.full(name);
        lineStart[count] = at;
        valueStart[count] = colon + 1;
        valueEnd[count] = end;
        count++;
        return true;
    }

    private void grow() {
        int n = names.length * 2;
        names = Arrays.copyOf(names, n);
        lineStart = Arrays.copyOf(lineStart, n);
        valueStart = Arrays.copyOf(valueStart, n);
        valueEnd = Arrays.copyOf(valueEnd, n);
        folded = Arrays.copyOf(folded, n);
    }

    /** Index of the CR of the CRLF ending the line at {@code at}; -1 if none or a bare LF comes first. */
    private static int lineEnd(byte[] bytes, int at) {
        for (int i = at; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                return -1;
            }
            if (bytes[i] == '\r') {
                return i + 1 < bytes.length && bytes[i + 1] == '\n' ? i : -1;
            }
        }
        return -1;
    }

    /** The first header named {@code name} (full, lower case) at or after {@code from}, or -1. */
    public int find(String name, int from) {
        for (int i = from; i < count; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The value of a header that must appear once; null if it is absent or repeated. */
    public String single(String name) {
        int h = find(name, 0);
        return h < 0 || find(name, h + 1) >= 0 ? null : value(h);
    }

    /** Content-Length present once and equal to the body's length; else JAIN-SIP decides what the body is. */
    public boolean lengthAgrees() {
        String length = single("content-length");
        return length != null && number(length, 1 << 20) == bodyLength();
    }

    /** Index of the first comma in a header's value (where its first value ends), or -1. */
    public int firstComma(int header) {
        for (int i = valueStart[header]; i < valueEnd[header]; i++) {
            if (bytes[i] == ',') {
                return i;
            }
        }
        return -1;
    }

    /** The first of a header's comma-separated values, trimmed. */
    public static String firstValue(String text) {
        int comma = text.indexOf(',');
        return comma < 0 ? text : text.substring(0, comma).trim();
    }

    /** A decimal number no larger than {@code max}, or -1. */
    public static long number(String text, long max) {
        if (text.isEmpty() || text.length() > 10) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n <= max ? n : -1;
    }

    /** How many headers are named {@code name}. */
    public int countOf(String name) {
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (names[i].equals(name)) {
                n++;
            }
        }
        return n;
    }

    /** A header's value, folding undone, trimmed. */
    public String value(int header) {
        String text = new String(bytes, valueStart[header], valueEnd[header] - valueStart[header],
                StandardCharsets.ISO_8859_1);
        if (folded[header]) {
            text = text.replaceAll("\r\n[ \t]+", " ");
        }
        return text.trim();
    }

    /** Index just past a header's line (its CRLF). */
    public int lineEnd(int header) {
        return valueEnd[header] + 2;
    }

    public String startLine() {
        return new String(bytes, 0, startLineEnd, StandardCharsets.ISO_8859_1);
    }

    public int bodyLength() {
        return bytes.length - bodyStart;
    }
}
