package org.p2psip.sipload;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the load reads of a response: its status, the branch of its top Via (which client
 * transaction it answers, RFC 3261 §17.1.3) and its WWW-Authenticate values. Headers in compact
 * form ("v") and in any case are understood; the body is ignored. Of a 200 to an RFC 5626 client
 * it also reads whether it requires outbound and its Flow-Timer (-1 when absent); of any response
 * its Retry-After's seconds (-1 when absent), which a 503 of an overloaded server carries.
 */
record Response(int status, String branch, List<String> wwwAuthenticate, boolean requireOutbound, int flowTimer,
                int retryAfter) {

    /** The response in {@code data[0..length)}, or null when it is no SIP response (a request, garbage). */
    static Response parse(byte[] data, int length) {
        String text = new String(data, 0, length, StandardCharsets.UTF_8);
        if (!text.startsWith("SIP/2.0 ") || text.length() < 11) {
            return null;
        }
        int status;
        try {
            status = Integer.parseInt(text.substring(8, 11));
        } catch (NumberFormatException e) {
            return null;
        }
        String branch = null;
        boolean outbound = false;
        int flowTimer = -1;
        int retryAfter = -1;
        var challenges = new ArrayList<String>(2);
        int start = text.indexOf("\r\n") + 2;
        while (start > 1 && start < text.length()) {
            int end = text.indexOf("\r\n", start);
            if (end < 0) {
                end = text.length();
            }
            if (end == start) {
                break; // the blank line before the body
            }
            int colon = text.indexOf(':', start);
            if (colon > start && colon < end) {
                String name = text.substring(start, colon).strip().toLowerCase(Locale.ROOT);
                String value = text.substring(colon + 1, end).strip();
                if (branch == null && (name.equals("via") || name.equals("v"))) {
                    branch = branchOf(value);
                } else if (name.equals("www-authenticate")) {
                    challenges.add(value);
                } else if (name.equals("require")) {
                    outbound |= hasToken(value, "outbound");
                } else if (name.equals("flow-timer")) {
                    flowTimer = seconds(value);
                } else if (name.equals("retry-after")) {
                    retryAfter = deltaSeconds(value);
                }
            }
            start = end + 2;
        }
        return branch == null ? null : new Response(status, branch, List.copyOf(challenges), outbound, flowTimer,
                retryAfter);
    }

    private static boolean hasToken(String list, String token) {
        for (String item : list.split(",")) {
            if (item.strip().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }

    private static int seconds(String value) {
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * RFC 3261 §20.33: Retry-After is delta-seconds, then an optional comment and parameters
     * ("120 (busy);duration=60"): only the leading digits count (more than nine mean "not soon":
     * the largest int); -1 when there are none.
     */
    private static int deltaSeconds(String value) {
        String text = value.strip();
        int end = 0;
        while (end < text.length() && text.charAt(end) >= '0' && text.charAt(end) <= '9') {
            end++;
        }
        if (end == 0) {
            return -1;
        }
        return end > 9 ? Integer.MAX_VALUE : Integer.parseInt(text.substring(0, end));
    }

    boolean isProvisional() {
        return status < 200;
    }

    boolean isSuccess() {
        return status >= 200 && status < 300;
    }

    /** The branch parameter of the first via-parm of a Via value ("" when it has none), as sent. */
    static String branchOf(String via) {
        int comma = via.indexOf(',');
        String first = comma < 0 ? via : via.substring(0, comma);
        int at = first.toLowerCase(Locale.ROOT).indexOf(";branch=");
        if (at < 0) {
            return "";
        }
        int from = at + ";branch=".length();
        int to = from;
        while (to < first.length() && ";, \t".indexOf(first.charAt(to)) < 0) {
            to++;
        }
        return first.substring(from, to);
    }
}
