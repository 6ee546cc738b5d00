package org.p2psip.dht.bryan;

import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The DHT-Stamp header of a peer request: when it was sent, by which life of its sender, and its
 * place among the requests that life signed. DHT-Auth covers it, so a receiver can refuse a
 * captured request sent again ({@link ReplayGuard}). Immutable.
 * <pre>DHT-Stamp: SENT-AT EPOCH SEQUENCE</pre>
 *
 * @param sentAt   the sender's clock when it stamped the request, milliseconds since 1970
 * @param epoch    drawn at random when the sending peer started, the same for its whole life
 * @param sequence 1, 2, 3... over every request that life of the sender signed, whatever its target
 */
record StampHeader(long sentAt, long epoch, long sequence) {

    static final String NAME = "DHT-Stamp";
    private static final Pattern GRAMMAR = Pattern.compile("([0-9]{1,19})[ \t]+([0-9a-fA-F]{16})[ \t]+([0-9]{1,19})");

    StampHeader {
        if (sentAt < 0 || sequence < 1) {
            throw new IllegalArgumentException("sent at " + sentAt + ", sequence " + sequence);
        }
    }

    String print() {
        return sentAt + " " + HexFormat.of().toHexDigits(epoch) + " " + sequence;
    }

    static StampHeader parse(String text) {
        Matcher m = GRAMMAR.matcher(text.trim());
        if (!m.matches()) {
            throw new MalformedHeaderException(NAME, text, "expected SENT-AT EPOCH SEQUENCE (digits, 16 hex digits, digits)");
        }
        long sentAt = number(text, m.group(1));
        long sequence = number(text, m.group(3));
        if (sequence < 1) {
            throw new MalformedHeaderException(NAME, text, "the sequence starts at 1");
        }
        return new StampHeader(sentAt, HexFormat.fromHexDigitsToLong(m.group(2)), sequence);
    }

    private static long number(String text, String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) { // 19 digits may pass 2^63 - 1
            throw new MalformedHeaderException(NAME, text, digits + " is beyond 2^63 - 1");
        }
    }
}
