package org.p2psip.dht.bryan;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The generic shape of the DHT-* header values: a first part (an angle-bracketed URI or a token)
 * followed by {@code ;name=value} parameters. This is the only hand-written parsing in the backend,
 * and it reads only the headers whose grammar the README fixes. Immutable.
 *
 * @param head   the URI without its brackets, or the token
 * @param params parameter names in lower case, in order of appearance, each at most once
 */
record HeaderValue(String head, Map<String, String> params) {

    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,19}");
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9.!%*_+`'~-]+");

    static HeaderValue parse(String header, String text, boolean bracketedHead) {
        String value = text.trim();
        String head;
        String rest;
        if (bracketedHead) {
            if (!value.startsWith("<") || value.indexOf('>') < 0) {
                throw new MalformedHeaderException(header, text, "expected <sip:PEER-ID@host:port> first");
            }
            head = value.substring(1, value.indexOf('>'));
            rest = value.substring(value.indexOf('>') + 1).trim();
        } else {
            int semi = value.indexOf(';');
            head = (semi < 0 ? value : value.substring(0, semi)).trim();
            rest = semi < 0 ? "" : value.substring(semi).trim();
            if (!TOKEN.matcher(head).matches()) {
                throw new MalformedHeaderException(header, text, "expected a token first");
            }
        }
        var params = new LinkedHashMap<String, String>();
        if (!rest.isEmpty()) {
            if (!rest.startsWith(";")) {
                throw new MalformedHeaderException(header, text, "parameters must follow ';'");
            }
            for (String param : rest.substring(1).split(";", -1)) {
                int eq = param.indexOf('=');
                if (eq < 0) {
                    throw new MalformedHeaderException(header, text, "parameter '" + param.trim() + "' has no value");
                }
                String name = param.substring(0, eq).trim().toLowerCase(Locale.ROOT);
                String v = param.substring(eq + 1).trim();
                if (!TOKEN.matcher(name).matches() || !TOKEN.matcher(v).matches()) {
                    throw new MalformedHeaderException(header, text, "parameter '" + param.trim() + "' is not name=token");
                }
                if (params.put(name, v) != null) {
                    throw new MalformedHeaderException(header, text, "parameter " + name + " given twice");
                }
            }
        }
        return new HeaderValue(head, params);
    }

    String required(String header, String text, String name) {
        String v = params.get(name);
        if (v == null) {
            throw new MalformedHeaderException(header, text, "lacks the " + name + " parameter");
        }
        return v;
    }

    /** A decimal parameter in [0, max]; absent: {@code absent}. */
    long number(String header, String text, String name, long max, long absent) {
        String v = params.get(name);
        if (v == null) {
            return absent;
        }
        long n;
        try {
            n = DIGITS.matcher(v).matches() ? Long.parseLong(v) : -1;
        } catch (NumberFormatException e) {
            n = -1; // 19 digits above 2^63-1
        }
        if (n < 0 || n > max) {
            throw new MalformedHeaderException(header, text, name + " must be a number 0.." + max);
        }
        return n;
    }
}
