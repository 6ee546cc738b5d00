package org.p2psip.auth;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides whether a request carries the Digest credentials of the user it acts for (RFC 3261
 * §22): the answer to a challenge of this deployment, for the user and the realm (the user's
 * domain) of the AOR, computed with the user's HA1. No state but the users: nonces check
 * themselves ({@link Nonces}).
 */
public final class Authenticator {

    /** What a request's credentials are found to be. */
    public sealed interface Verdict {
        /** Credentials of {@code user}: serve the request. */
        record Accepted(String user) implements Verdict { }

        /** No usable credentials, or wrong ones: challenge (401/407), with stale=true when only the nonce aged. */
        record Challenge(boolean stale) implements Verdict { }

        /** Credentials that can never succeed for this request: 403 (or 400 when malformed) with the reason. */
        record Refused(int status, String reason) implements Verdict { }
    }

    private static final Verdict CHALLENGE = new Verdict.Challenge(false);
    private final Users users;
    private final Nonces nonces;
    private final List<Algorithm> offered;

    /** Offers {@code offered} in its challenges, most preferred first, and accepts answers in them only. */
    public Authenticator(Users users, Nonces nonces, List<Algorithm> offered) {
        this.users = users;
        this.nonces = nonces;
        this.offered = List.copyOf(offered);
    }

    /**
     * Checks {@code headers} (the values of Authorization, or Proxy-Authorization) of a request
     * with {@code method} acting for {@code user} at {@code domain}; the credentials for that realm
     * are the ones that count, others are for other servers.
     */
    public Verdict check(String method, List<String> headers, String user, String domain, long nowMillis) {
        Credentials answer = null;
        for (String header : headers) {
            Credentials c;
            try {
                c = Credentials.parse(header);
            } catch (IllegalArgumentException e) {
                return new Verdict.Refused(400, "Malformed Credentials");
            }
            if (c.get("realm").equalsIgnoreCase(domain)) {
                answer = c;
            }
        }
        if (answer == null) {
            return CHALLENGE;
        }
        if (!answer.get("username").equals(user)) {
            return new Verdict.Refused(403, "Credentials Do Not Match The AOR");
        }
        return verify(method, answer, user, domain, nowMillis);
    }

    private Verdict verify(String method, Credentials answer, String user, String domain, long nowMillis) {
        Optional<Algorithm> algorithm = Algorithm.named(answer.get("algorithm"));
        String qop = answer.get("qop");
        if (algorithm.isEmpty() || !offered.contains(algorithm.get()) || !(qop.isEmpty() || qop.equalsIgnoreCase("auth"))) {
            return CHALLENGE; // offered afresh: the algorithms offered, qop=auth
        }
        Nonces.Verdict nonce = nonces.check(answer.get("nonce"), domain, nowMillis);
        Optional<String> ha1 = users.ha1(user, domain, algorithm.get());
        if (nonce == Nonces.Verdict.FORGED || ha1.isEmpty()) {
            return CHALLENGE;
        }
        String expected = Digest.response(algorithm.get(), ha1.get(), answer.get("nonce"), answer.get("nc"),
                answer.get("cnonce"), qop, method, answer.get("uri"));
        if (!java.security.MessageDigest.isEqual(expected.getBytes(), answer.get("response").toLowerCase().getBytes())) {
            return CHALLENGE;
        }
        return nonce == Nonces.Verdict.FRESH ? new Verdict.Accepted(user) : new Verdict.Challenge(true);
    }

    /**
     * The challenges for {@code realm}, one per offered algorithm in the order of preference
     * (RFC 8760 §2.4: a client takes the first it supports), each with the same fresh nonce and qop=auth.
     */
    public List<String> challenges(String realm, boolean stale, long nowMillis) {
        String nonce = nonces.issue(realm, nowMillis);
        var out = new ArrayList<String>();
        for (Algorithm a : offered) {
            out.add("Digest realm=\"" + realm + "\", nonce=\"" + nonce + "\", algorithm=" + a.wireName()
                    + ", qop=\"auth\"" + (stale ? ", stale=true" : ""));
        }
        return out;
    }
}
