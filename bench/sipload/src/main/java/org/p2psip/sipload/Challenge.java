package org.p2psip.sipload;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.p2psip.auth.Algorithm;
import org.p2psip.auth.Credentials;

/**
 * A Digest challenge (a WWW-Authenticate value, RFC 7616 §3.3) as a client keeps it to answer it:
 * realm, nonce, algorithm, the qop it chose ("auth", or "" for a challenge without qop), opaque,
 * and whether the server said stale=true.
 */
public record Challenge(String realm, String nonce, Algorithm algorithm, String qop, String opaque, boolean stale) {

    /**
     * The first of {@code headers} (WWW-Authenticate values, in the order received) that offers
     * {@code wanted}: a server sends one per algorithm, most preferred first (RFC 8760 §2.4), and
     * this client answers the one it was told to use. Empty when none offers it, or when none is
     * Digest with a nonce and qop auth (or no qop).
     */
    public static Optional<Challenge> choose(List<String> headers, Algorithm wanted) {
        for (String header : headers) {
            Optional<Challenge> parsed = parse(header);
            if (parsed.isPresent() && parsed.get().algorithm() == wanted) {
                return parsed;
            }
        }
        return Optional.empty();
    }

    /** One WWW-Authenticate value; empty when it is not a Digest challenge this client can answer. */
    public static Optional<Challenge> parse(String header) {
        Credentials params;
        try {
            // A challenge is "Digest" and auth-params, the grammar of credentials (RFC 7616 §3.3, §3.4).
            params = Credentials.parse(header);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        Optional<Algorithm> algorithm = Algorithm.named(params.get("algorithm"));
        String nonce = params.get("nonce");
        if (algorithm.isEmpty() || nonce.isEmpty()) {
            return Optional.empty();
        }
        String qop = chooseQop(params.get("qop"));
        if (qop == null) {
            return Optional.empty();
        }
        return Optional.of(new Challenge(params.get("realm"), nonce, algorithm.get(), qop, params.get("opaque"),
                params.get("stale").equalsIgnoreCase("true")));
    }

    /** "auth" when the server offers it, "" when it offers no qop (RFC 2069), null when only others (auth-int). */
    private static String chooseQop(String offered) {
        if (offered.isBlank()) {
            return "";
        }
        for (String option : offered.split(",")) {
            if (option.strip().toLowerCase(Locale.ROOT).equals("auth")) {
                return "auth";
            }
        }
        return null;
    }
}
