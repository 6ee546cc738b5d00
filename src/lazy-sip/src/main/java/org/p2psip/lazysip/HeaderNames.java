package org.p2psip.lazysip;

/** The compact forms of RFC 3261 §7.3.3 (and the extensions' in common use), written out in full. Stateless. */
public final class HeaderNames {

    private HeaderNames() {
    }

    /** The full lower-case name of a lower-case header name, compact or not. */
    public static String full(String name) {
        if (name.length() != 1) {
            return name;
        }
        return switch (name.charAt(0)) {
            case 'v' -> "via";
            case 'i' -> "call-id";
            case 'f' -> "from";
            case 't' -> "to";
            case 'l' -> "content-length";
            case 'm' -> "contact";
            case 'c' -> "content-type";
            case 'e' -> "content-encoding";
            case 'k' -> "supported";
            case 's' -> "subject";
            case 'o' -> "event";
            case 'r' -> "refer-to";
            case 'u' -> "allow-events";
            case 'x' -> "session-expires";
            case 'b' -> "referred-by";
            default -> name;
        };
    }
}
