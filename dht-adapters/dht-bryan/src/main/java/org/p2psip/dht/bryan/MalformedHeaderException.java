package org.p2psip.dht.bryan;

/** A DHT-* header value that does not follow the grammar in the README; answered with 400. */
public final class MalformedHeaderException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public MalformedHeaderException(String header, String value, String why) {
        super("malformed " + header + " '" + value + "': " + why);
    }
}
