package org.p2psip.sipload;

import org.p2psip.auth.Digest;

/** The Authorization value that answers a challenge (RFC 3261 §22.4, RFC 7616 §3.4). */
public final class Authorization {

    private Authorization() {
    }

    /**
     * Credentials of {@code username}, whose HA1 for the challenge's algorithm and realm is
     * {@code ha1}, for a request {@code method} to {@code uri}; with qop "auth" they carry the
     * nonce count {@code nc} (1 for the first answer to a nonce, then one more per request) and
     * the client nonce {@code cnonce}.
     */
    public static String value(String username, String ha1, Challenge challenge, int nc, String cnonce,
                               String method, String uri) {
        boolean withQop = !challenge.qop().isEmpty();
        String count = withQop ? nonceCount(nc) : "";
        String response = Digest.response(challenge.algorithm(), ha1, challenge.nonce(), count,
                withQop ? cnonce : "", challenge.qop(), method, uri);
        var out = new StringBuilder(256)
                .append("Digest username=").append(quoted(username))
                .append(", realm=").append(quoted(challenge.realm()))
                .append(", nonce=").append(quoted(challenge.nonce()))
                .append(", uri=").append(quoted(uri))
                .append(", response=").append(quoted(response))
                .append(", algorithm=").append(challenge.algorithm().wireName());
        if (withQop) {
            out.append(", cnonce=").append(quoted(cnonce))
                    .append(", qop=").append(challenge.qop())
                    .append(", nc=").append(count);
        }
        if (!challenge.opaque().isEmpty()) {
            out.append(", opaque=").append(quoted(challenge.opaque()));
        }
        return out.toString();
    }

    /** nc: eight lower-case hex digits (RFC 7616 §3.4). */
    static String nonceCount(int nc) {
        return String.format("%08x", nc);
    }

    private static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
