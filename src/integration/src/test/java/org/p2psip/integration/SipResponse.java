package org.p2psip.integration;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@link RegisterLoad} reads of a response datagram: the status line, Call-ID, CSeq number,
 * Retry-After and the Contacts' URIs, in full or compact header names (RFC 3261 §7.3.3), one
 * Contact header per binding or several in one, comma-separated.
 *
 * @param retryAfter seconds, or -1 without a Retry-After
 */
record SipResponse(int status, String reason, String callId, long cseq, long retryAfter, List<String> contacts) {

    /** The response in {@code text}, or null when it is not one. */
    static SipResponse parse(String text) {
        int eol = text.indexOf("\r\n");
        if (!text.startsWith("SIP/2.0 ") || eol < 11) {
            return null;
        }
        int status;
        try {
            status = Integer.parseInt(text, 8, 11, 10);
        } catch (NumberFormatException e) {
            return null;
        }
        String reason = eol > 12 ? text.substring(12, eol) : "";
        String callId = null;
        long cseq = -1;
        long retryAfter = -1;
        List<String> contacts = new ArrayList<>(1);
        for (int start = eol + 2, end; (end = text.indexOf("\r\n", start)) > start; start = end + 2) {
            int colon = text.indexOf(':', start);
            if (colon < 0 || colon > end) {
                continue;
            }
            String name = text.substring(start, colon).strip().toLowerCase(java.util.Locale.ROOT);
            String value = text.substring(colon + 1, end).strip();
            switch (name) {
                case "call-id", "i" -> callId = value;
                case "cseq" -> cseq = leadingNumber(value);
                case "retry-after" -> retryAfter = leadingNumber(value);
                case "contact", "m" -> addUris(value, contacts);
                default -> { }
            }
        }
        return new SipResponse(status, reason, callId, cseq, retryAfter, contacts);
    }

    /** The digits a header value starts with ("12 REGISTER", "5;duration=60", "5 (busy)"), or -1. */
    private static long leadingNumber(String value) {
        int digits = 0;
        while (digits < value.length() && digits < 18 && Character.isDigit(value.charAt(digits))) {
            digits++;
        }
        return digits == 0 ? -1 : Long.parseLong(value, 0, digits, 10);
    }

    /** Each element's URI of a Contact value. */
    private static void addUris(String value, List<String> into) {
        for (String element : elements(value)) {
            into.add(uriOf(element));
        }
    }

    /** The elements of a header value that lists several (Contact, Via, Record-Route): split at commas outside quotes and angle brackets. */
    static List<String> elements(String value) {
        var elements = new java.util.ArrayList<String>();
        boolean quoted = false;
        int depth = 0;
        int from = 0;
        for (int i = 0; i <= value.length(); i++) {
            char c = i < value.length() ? value.charAt(i) : ',';
            if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == '<') {
                depth++;
            } else if (!quoted && c == '>') {
                depth--;
            } else if (!quoted && depth == 0 && c == ',') {
                String element = value.substring(from, i).strip();
                if (!element.isEmpty()) {
                    elements.add(element);
                }
                from = i + 1;
            }
        }
        return elements;
    }

    /** name-addr: what the angle brackets hold; addr-spec: up to its parameters. */
    private static String uriOf(String element) {
        int open = element.indexOf('<');
        if (open >= 0) {
            int close = element.indexOf('>', open);
            return element.substring(open + 1, close < 0 ? element.length() : close);
        }
        int semicolon = element.indexOf(';');
        return semicolon < 0 ? element : element.substring(0, semicolon);
    }
}
