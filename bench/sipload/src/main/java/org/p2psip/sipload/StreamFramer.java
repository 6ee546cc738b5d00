package org.p2psip.sipload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Cuts a byte stream (a TCP connection) into SIP messages: a message is its header block up to
 * the blank line and then Content-Length bytes of body (RFC 3261 §18.3: on a stream the length is
 * what frames it). CRLFs between messages are keep-alives (RFC 5626 §3.5.1), reported one by one
 * to {@link Keepalive}, which tells a ping from a pong. Bytes that do not yet make a whole message
 * are held until the next read; a connection with nothing held holds no array.
 *
 * <p>One per connection, used by the load's one thread only.
 */
final class StreamFramer {
    /** A header block longer than this without its blank line is no SIP: the stream is given up. */
    static final int MAX_HEADER_BYTES = 16 * 1024;
    /** A body longer than this is refused rather than buffered for. */
    static final int MAX_BODY_BYTES = 1024 * 1024;
    private static final byte[] NOTHING = new byte[0];

    /** What the stream carried. */
    interface Sink {
        void message(byte[] message);

        void crlf();
    }

    private byte[] held = NOTHING;
    private int heldLength;

    /** Bytes held for a message not yet complete (a split message, a lone CR). */
    int held() {
        return heldLength;
    }

    /**
     * Frames {@code data[offset..offset+length)} after what earlier calls held; each whole message
     * and each keep-alive CRLF goes to {@code sink} in stream order. IOException when the stream
     * cannot be framed (no blank line within {@link #MAX_HEADER_BYTES}, a bad Content-Length).
     */
    void feed(byte[] data, int offset, int length, Sink sink) throws IOException {
        if (heldLength == 0) {
            int used = frame(data, offset, offset + length, sink);
            hold(data, used, offset + length);
            return;
        }
        if (held.length - heldLength < length) {
            held = Arrays.copyOf(held, Math.max(heldLength + length, 2 * held.length));
        }
        System.arraycopy(data, offset, held, heldLength, length);
        heldLength += length;
        int used = frame(held, 0, heldLength, sink);
        hold(held, used, heldLength);
    }

    private void hold(byte[] source, int from, int to) {
        int rest = to - from;
        if (rest == 0) {
            held = NOTHING;
            heldLength = 0;
            return;
        }
        byte[] kept = source == held && from == 0 ? held : Arrays.copyOfRange(source, from, Math.max(to, from + 512));
        held = kept;
        heldLength = rest;
    }

    /** Emits what is whole in {@code buf[from..to)}; returns where the incomplete rest starts. */
    private static int frame(byte[] buf, int from, int to, Sink sink) throws IOException {
        int at = from;
        while (at < to) {
            byte b = buf[at];
            if (b == '\r' || b == '\n') {
                if (b == '\n') {
                    at++; // a bare LF between messages: noise, not a keep-alive
                    continue;
                }
                if (at + 1 == to) {
                    return at; // a CR whose LF is still on its way
                }
                if (buf[at + 1] == '\n') {
                    sink.crlf();
                    at += 2;
                } else {
                    at++;
                }
                continue;
            }
            int end = messageEnd(buf, at, to);
            if (end < 0) {
                return at;
            }
            sink.message(Arrays.copyOfRange(buf, at, end));
            at = end;
        }
        return at;
    }

    /** Where the message starting at {@code start} ends, or -1 when it is not all in {@code buf[..to)} yet. */
    private static int messageEnd(byte[] buf, int start, int to) throws IOException {
        int blank = blankLine(buf, start, to);
        if (blank < 0) {
            if (to - start > MAX_HEADER_BYTES) {
                throw new IOException("no end of headers within " + MAX_HEADER_BYTES + " bytes");
            }
            return -1;
        }
        int bodyStart = blank + 4;
        long end = (long) bodyStart + contentLength(buf, start, blank);
        return end <= to ? (int) end : -1;
    }

    private static int blankLine(byte[] buf, int from, int to) {
        for (int i = from; i + 3 < to; i++) {
            if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** The Content-Length (or compact "l") of the header block {@code buf[start..blank)}; 0 when absent. */
    static int contentLength(byte[] buf, int start, int blank) throws IOException {
        int line = start;
        while (line < blank) {
            int eol = line;
            while (eol < blank && buf[eol] != '\r') {
                eol++;
            }
            int colon = line;
            while (colon < eol && buf[colon] != ':') {
                colon++;
            }
            if (colon < eol && isContentLength(buf, line, colon)) {
                return length(new String(buf, colon + 1, eol - colon - 1, StandardCharsets.US_ASCII));
            }
            line = eol + 2;
        }
        return 0; // RFC 3261 §18.3 requires it on streams; a message without one is taken as having no body
    }

    private static boolean isContentLength(byte[] buf, int from, int colon) {
        String name = new String(buf, from, colon - from, StandardCharsets.US_ASCII).strip();
        return name.equalsIgnoreCase("content-length") || name.equalsIgnoreCase("l");
    }

    private static int length(String value) throws IOException {
        try {
            int n = Integer.parseInt(value.strip());
            if (n < 0 || n > MAX_BODY_BYTES) {
                throw new IOException("Content-Length out of range: " + value.strip());
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IOException("bad Content-Length: " + value.strip());
        }
    }
}
