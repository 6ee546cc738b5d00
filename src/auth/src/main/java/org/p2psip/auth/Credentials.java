package org.p2psip.auth;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The Digest credentials of an Authorization or Proxy-Authorization header (RFC 3261 §25.1,
 * RFC 7616 §3.4): parameter names in lower case, quoted values unquoted.
 */
public record Credentials(Map<String, String> params) {

    /** Parses {@code value}; IllegalArgumentException if it is not Digest credentials. */
    public static Credentials parse(String value) {
        String text = value.strip();
        int space = text.indexOf(' ');
        if (space < 0 || !text.substring(0, space).equalsIgnoreCase("Digest")) {
            throw new IllegalArgumentException("not Digest credentials");
        }
        var params = new HashMap<String, String>();
        int i = space + 1;
        while (i < text.length()) {
            i = skip(text, i, " \t,");
            if (i >= text.length()) {
                break;
            }
            int eq = text.indexOf('=', i);
            if (eq < 0) {
                throw new IllegalArgumentException("a parameter without a value: " + text.substring(i));
            }
            String name = text.substring(i, eq).strip().toLowerCase(Locale.ROOT);
            i = skip(text, eq + 1, " \t");
            var valueOut = new StringBuilder();
            i = text.startsWith("\"", i) ? quoted(text, i, valueOut) : token(text, i, valueOut);
            if (params.putIfAbsent(name, valueOut.toString()) != null) {
                throw new IllegalArgumentException("parameter " + name + " twice");
            }
        }
        return new Credentials(Map.copyOf(params));
    }

    /** The parameter's value, or "" when absent. */
    public String get(String name) {
        return params.getOrDefault(name, "");
    }

    private static int skip(String text, int i, String chars) {
        while (i < text.length() && chars.indexOf(text.charAt(i)) >= 0) {
            i++;
        }
        return i;
    }

    private static int quoted(String text, int i, StringBuilder out) {
        for (int j = i + 1; j < text.length(); j++) {
            char c = text.charAt(j);
            if (c == '\\' && j + 1 < text.length()) {
                out.append(text.charAt(++j));
            } else if (c == '"') {
                return j + 1;
            } else {
                out.append(c);
            }
        }
        throw new IllegalArgumentException("an unterminated quoted value");
    }

    private static int token(String text, int i, StringBuilder out) {
        int j = i;
        while (j < text.length() && text.charAt(j) != ',' && !Character.isWhitespace(text.charAt(j))) {
            j++;
        }
        out.append(text, i, j);
        return j;
    }
}
