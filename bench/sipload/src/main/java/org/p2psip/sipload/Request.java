package org.p2psip.sipload;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A request that reached a phone on its connection (an INVITE through the proxy, an OPTIONS, a
 * BYE...): its method and its header fields in the order they came, names in their long lower-case
 * form (RFC 3261 §7.3.3's compact forms expanded), values as sent. What the phone needs to answer
 * it; the body is not kept.
 */
record Request(String method, List<Header> headers) {

    record Header(String name, String value) {
    }

    /** The request in {@code message}, or null when it is none (a response, garbage). */
    static Request parse(byte[] message) {
        String text = new String(message, StandardCharsets.UTF_8);
        int eol = text.indexOf("\r\n");
        if (eol < 0 || !text.substring(0, eol).endsWith(" SIP/2.0")) {
            return null;
        }
        int space = text.indexOf(' ');
        if (space <= 0 || space >= eol) {
            return null;
        }
        var headers = new ArrayList<Header>();
        int start = eol + 2;
        while (start < text.length()) {
            int end = text.indexOf("\r\n", start);
            if (end < 0 || end == start) {
                break; // the blank line before the body
            }
            int colon = text.indexOf(':', start);
            if (colon > start && colon < end) {
                String name = longName(text.substring(start, colon).strip().toLowerCase(Locale.ROOT));
                headers.add(new Header(name, text.substring(colon + 1, end).strip()));
            }
            start = end + 2;
        }
        return new Request(text.substring(0, space), List.copyOf(headers));
    }

    /** The first value of header {@code name} (long lower-case form), "" when absent. */
    String first(String name) {
        for (Header h : headers) {
            if (h.name().equals(name)) {
                return h.value();
            }
        }
        return "";
    }

    /** Every value of header {@code name}, in order. */
    List<String> all(String name) {
        var values = new ArrayList<String>(2);
        for (Header h : headers) {
            if (h.name().equals(name)) {
                values.add(h.value());
            }
        }
        return values;
    }

    /** The branch of the top Via: the server transaction, which a CANCEL shares with its INVITE. */
    String branch() {
        return Response.branchOf(first("via"));
    }

    private static String longName(String name) {
        return switch (name) {
            case "v" -> "via";
            case "f" -> "from";
            case "t" -> "to";
            case "i" -> "call-id";
            case "m" -> "contact";
            case "l" -> "content-length";
            case "c" -> "content-type";
            case "k" -> "supported";
            default -> name;
        };
    }
}
