package org.p2psip.front.calls;

import java.util.ArrayList;
import java.util.List;

/**
 * The Contact values of an answer (a 302's), read by hand: each value's URI and q, in the order
 * they come. Values are split at commas outside quotes and angle brackets; a name-addr's URI is
 * between its brackets, an addr-spec's ends at its first semicolon (what follows are the header's
 * parameters, RFC 3261 §20.10). Stateless.
 */
final class Contacts {

    /** One Contact value: its URI and q (1.0 when it has none, RFC 3261 §10.2.1.2). */
    record Value(SipUriText uri, double q) {
    }

    private Contacts() {
    }

    static List<Value> of(Message answer) {
        var values = new ArrayList<Value>(4);
        for (int h = answer.header("contact"); h >= 0; h = answer.lines.find("contact", h + 1)) {
            for (String text : split(answer.lines.value(h))) {
                Value value = value(text);
                if (value != null) {
                    values.add(value);
                }
            }
        }
        return values;
    }

    private static List<String> split(String header) {
        var parts = new ArrayList<String>(2);
        boolean quoted = false;
        boolean bracketed = false;
        int start = 0;
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (quoted && c == '\\') {
                i++;
            } else if (c == '"' && !bracketed) {
                quoted = !quoted;
            } else if (!quoted && c == '<') {
                bracketed = true;
            } else if (!quoted && c == '>') {
                bracketed = false;
            } else if (!quoted && !bracketed && c == ',') {
                parts.add(header.substring(start, i).trim());
                start = i + 1;
            }
        }
        parts.add(header.substring(start).trim());
        return parts;
    }

    /** A value's URI and q; null for an empty value or a bracket never closed. */
    private static Value value(String text) {
        int open = openBracket(text);
        String uri;
        String params;
        if (open >= 0) {
            int close = text.indexOf('>', open);
            if (close < 0) {
                return null;
            }
            uri = text.substring(open + 1, close).trim();
            params = text.substring(close + 1);
        } else {
            int semi = text.indexOf(';');
            uri = (semi < 0 ? text : text.substring(0, semi)).trim();
            params = semi < 0 ? "" : text.substring(semi);
        }
        return uri.isEmpty() ? null : new Value(SipUriText.of(uri), q(params));
    }

    /** The '<' opening the URI, past a quoted display name. */
    private static int openBracket(String text) {
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted && c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == '<') {
                return i;
            }
        }
        return -1;
    }

    private static double q(String params) {
        for (String p : params.split(";")) {
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).trim().equalsIgnoreCase("q")) {
                try {
                    return Double.parseDouble(p.substring(eq + 1).trim());
                } catch (NumberFormatException e) {
                    return 1.0; // a q that does not read ranks as none
                }
            }
        }
        return 1.0;
    }
}
