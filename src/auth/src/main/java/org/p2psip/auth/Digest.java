package org.p2psip.auth;

/** The request-digest of RFC 7616 §3.4.1 (RFC 2617 §3.2.2.1 when the answer has no qop). */
public final class Digest {

    private Digest() {
    }

    /**
     * The response a client with {@code ha1} computes for {@code method} and {@code uri} (the
     * digest-uri it sent); with {@code qop} "auth" it covers nonce-count and client nonce, without
     * qop (RFC 2069 clients) only the nonce.
     */
    public static String response(Algorithm algorithm, String ha1, String nonce, String nc, String cnonce,
                                  String qop, String method, String uri) {
        String ha2 = algorithm.hex(method + ":" + uri);
        if (qop == null || qop.isEmpty()) {
            return algorithm.hex(ha1 + ":" + nonce + ":" + ha2);
        }
        return algorithm.hex(ha1 + ":" + nonce + ":" + nc + ":" + cnonce + ":" + qop + ":" + ha2);
    }

    /**
     * The Authorization value a client with {@code ha1} sends to answer a challenge of
     * {@code realm} and {@code nonce} with qop=auth, for {@code method} to {@code uri}: the
     * phones of the tests and the node's own warm-up build theirs here.
     */
    public static String authorization(Algorithm algorithm, String user, String realm, String ha1, String nonce,
                                       String nc, String cnonce, String method, String uri) {
        String response = response(algorithm, ha1, nonce, nc, cnonce, "auth", method, uri);
        return "Digest username=\"" + user + "\", realm=\"" + realm + "\", nonce=\"" + nonce + "\", uri=\"" + uri
                + "\", response=\"" + response + "\", algorithm=" + algorithm.wireName()
                + ", qop=auth, nc=" + nc + ", cnonce=\"" + cnonce + "\"";
    }
}
