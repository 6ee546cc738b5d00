package org.p2psip.metrics;

import java.util.Locale;

/** The little JSON the status endpoints write: strings escaped, numbers finite. */
public final class Json {

    private Json() {
    }

    /** A JSON string literal of {@code text}; null becomes null. */
    public static String string(String text) {
        if (text == null) {
            return "null";
        }
        var out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                        // < > & too, so that no text a peer or a request sent can close a script
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** A number with at most three decimals; NaN and infinities become null (JSON has neither). */
    public static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "null";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return String.format(Locale.ROOT, "%.3f", value);
    }
}
