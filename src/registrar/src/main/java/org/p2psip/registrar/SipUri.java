package org.p2psip.registrar;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A SIP or SIPS URI read far enough to compare two by the rules of RFC 3261 §19.1.4, which decide
 * whether a REGISTER's contact refreshes a stored binding: the user part compares case-sensitively,
 * everything else not; a character outside the reserved set equals its %XX escape (a reserved one
 * does not: {@code a%3Bb} is not {@code a;b}); the order of parameters and headers does not matter;
 * a port, transport, user, ttl, method or maddr present in one URI only makes them differ, any
 * other parameter present in one only is ignored, and headers must all match. A string that is
 * not a URI of this shape compares equal only to the same string. Immutable.
 */
record SipUri(String scheme, String userinfo, String host, String port, Map<String, String> params,
              Map<String, String> headers) {

    /** Parameters that, present in one URI only, make two URIs differ (with the port, §19.1.4). */
    private static final Set<String> MUST_BOTH_HAVE = Set.of("transport", "user", "ttl", "method", "maddr");

    /** RFC 3261 §25.1 reserved: escaped, these stay escaped, since there they are data, not syntax. */
    private static final String RESERVED = ";/?:@&=+$,";

    /** Whether two contact URIs, as strings, name the same binding. */
    static boolean equivalent(String a, String b) {
        if (a.equals(b)) {
            return true;
        }
        SipUri x = parse(a);
        SipUri y = parse(b);
        return x != null && y != null && x.equivalent(y);
    }

    boolean equivalent(SipUri other) {
        if (!scheme.equals(other.scheme) || !userinfo.equals(other.userinfo) || !host.equals(other.host)
                || !port.equals(other.port) || !headers.equals(other.headers)) {
            return false;
        }
        for (var param : params.entrySet()) {
            String theirs = other.params.get(param.getKey());
            if (theirs == null ? MUST_BOTH_HAVE.contains(param.getKey()) : !theirs.equals(param.getValue())) {
                return false;
            }
        }
        return other.params.keySet().stream().noneMatch(name -> MUST_BOTH_HAVE.contains(name) && !params.containsKey(name));
    }

    /** The URI's parts, normalised for comparison; null when it is not a sip: or sips: URI. */
    static SipUri parse(String text) {
        int colon = text.indexOf(':');
        if (colon < 0) {
            return null;
        }
        String scheme = text.substring(0, colon).toLowerCase(Locale.ROOT);
        if (!scheme.equals("sip") && !scheme.equals("sips")) {
            return null;
        }
        String rest = text.substring(colon + 1);
        // '@' appears unescaped only after the userinfo, while '?' and ';' may appear inside a user part
        int at = rest.indexOf('@');
        String userinfo = at < 0 ? "" : unescape(rest.substring(0, at));
        rest = rest.substring(at + 1);
        int question = rest.indexOf('?');
        String headerPart = question < 0 ? "" : rest.substring(question + 1);
        String[] hostAndParams = (question < 0 ? rest : rest.substring(0, question)).split(";", -1);
        String hostport = unescape(hostAndParams[0]).toLowerCase(Locale.ROOT);
        int portColon = hostport.startsWith("[") ? hostport.indexOf(':', hostport.indexOf(']')) : hostport.lastIndexOf(':');
        String host = portColon < 0 ? hostport : hostport.substring(0, portColon);
        String port = portColon < 0 ? "" : number(hostport.substring(portColon + 1));
        Map<String, String> params = new HashMap<>();
        for (int i = 1; i < hostAndParams.length; i++) {
            put(params, hostAndParams[i], true);
        }
        Map<String, String> headers = new HashMap<>();
        for (String header : headerPart.isEmpty() ? new String[0] : headerPart.split("&")) {
            put(headers, header, false);
        }
        return new SipUri(scheme, userinfo, host, port, params, headers);
    }

    private static void put(Map<String, String> into, String nameValue, boolean caseInsensitiveValue) {
        int equals = nameValue.indexOf('=');
        String name = unescape(equals < 0 ? nameValue : nameValue.substring(0, equals)).toLowerCase(Locale.ROOT);
        String value = equals < 0 ? "" : unescape(nameValue.substring(equals + 1));
        into.put(name, caseInsensitiveValue ? value.toLowerCase(Locale.ROOT) : value);
    }

    /** "05060" is port 5060; a port that is no number stays as written. */
    private static String number(String port) {
        String digits = port.replaceFirst("^0+(?=\\d)", "");
        return digits.chars().allMatch(Character::isDigit) ? digits : port;
    }

    /**
     * %XX escapes of characters outside the reserved set decoded, so that "%61lice" and "alice"
     * compare equal (§19.1.4); escapes of reserved characters kept, their hex digits in upper case,
     * so that "%3b" and "%3B" still compare equal to each other.
     */
    private static String unescape(String text) {
        if (text.indexOf('%') < 0) {
            return text;
        }
        var out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' && i + 2 < text.length() && isHex(text.charAt(i + 1)) && isHex(text.charAt(i + 2))) {
                char decoded = (char) Integer.parseInt(text.substring(i + 1, i + 3), 16);
                out.append(RESERVED.indexOf(decoded) >= 0 ? "%" + text.substring(i + 1, i + 3).toUpperCase(Locale.ROOT) : decoded);
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isHex(char c) {
        return Character.digit(c, 16) >= 0;
    }
}
