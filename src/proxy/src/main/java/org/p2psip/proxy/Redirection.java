package org.p2psip.proxy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * RFC 3841's {@code Request-Disposition: redirect} (§9.1): a stateful front that keeps a call's
 * transaction itself asks the node for the callee's contacts instead of the proxying, and forks
 * them itself. The node then answers 302 listing the contacts in the order it would have rung
 * them ({@link Decision.Redirect}); a contact registered through a Path (RFC 3327) carries that
 * Path as a Route header inside its URI (RFC 3261 §19.1.5), so that whoever follows the redirect
 * reaches it through the same edge proxy, which alone holds the flow to it.
 */
public final class Redirection {

    /** The header's names, RFC 3841 §9.1; "d" is its compact form, which the container keeps under that name. */
    public static final List<String> HEADER_NAMES = List.of("Request-Disposition", "d");
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private Redirection() {
    }

    /** Whether any of the header values lists the directive {@code redirect} (a token: any letter case). */
    public static boolean listsRedirect(List<String> values) {
        for (String value : values) {
            for (String directive : value.split(",")) {
                if (directive.strip().toLowerCase(Locale.ROOT).equals("redirect")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The value of the Route header a redirected contact's URI carries for its registration's
     * Path, escaped as a URI header value must be: the entries comma-joined, first on top, as
     * the proxy pushes them (RFC 3261 §19.1.1's hvalue allows no '<', ';', '@', ',', ...).
     */
    public static String route(List<String> path) {
        return escaped(String.join(",", path));
    }

    /** {@code value} with every character outside RFC 3261's hvalue escaped as %XX of its UTF-8 bytes. */
    static String escaped(String value) {
        var out = new StringBuilder(value.length() + 16);
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (unescaped(c)) {
                out.append(c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }

    /** RFC 3261 §25.1: hvalue = *( hnv-unreserved / unreserved / escaped ). */
    private static boolean unescaped(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || "-_.!~*'()".indexOf(c) >= 0     // mark
                || "[]/?:+$".indexOf(c) >= 0;      // hnv-unreserved
    }
}
