package org.p2psip.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The verdict on a REGISTER's credentials, case by case. */
class AuthenticatorTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final String REALM = "p2psip.test";
    private static final String URI = "sip:p2psip.test";
    private final Users users = (user, realm, algorithm) ->
            user.equals("alice") && realm.equals(REALM) ? Optional.of(algorithm.ha1("alice", REALM, "wonderland")) : Optional.empty();
    private final Nonces nonces = new Nonces("secret", Duration.ofMinutes(5));
    private final Authenticator auth = new Authenticator(users, nonces, AuthOptions.algorithms("SHA-256,MD5"));

    @Test
    void noCredentialsAreChallengedWithSha256FirstThenMd5() {
        assertEquals(new Authenticator.Verdict.Challenge(false), auth.check("REGISTER", List.of(), "alice", REALM, NOW));
        List<String> challenges = auth.challenges(REALM, false, NOW);
        assertTrue(challenges.get(0).contains("algorithm=SHA-256"), challenges.get(0));
        assertTrue(challenges.get(1).contains("algorithm=MD5"), challenges.get(1));
        assertTrue(challenges.get(0).contains("realm=\"p2psip.test\"") && challenges.get(0).contains("qop=\"auth\""));
    }

    @Test
    void theRightAnswerWithEitherAlgorithmIsAccepted() {
        for (Algorithm a : Algorithm.values()) {
            String header = answer(a, "alice", "wonderland", nonces.issue(REALM, NOW));
            assertEquals(new Authenticator.Verdict.Accepted("alice"), auth.check("REGISTER", List.of(header), "alice", REALM, NOW + 1000));
        }
    }

    @Test
    void aWrongPasswordOrAStrangerIsChallengedAgain() {
        String nonce = nonces.issue(REALM, NOW);
        assertEquals(new Authenticator.Verdict.Challenge(false),
                auth.check("REGISTER", List.of(answer(Algorithm.MD5, "alice", "guess", nonce)), "alice", REALM, NOW));
        assertEquals(new Authenticator.Verdict.Challenge(false),
                auth.check("REGISTER", List.of(answer(Algorithm.MD5, "mallory", "x", nonce)), "mallory", REALM, NOW));
    }

    @Test
    void anotherUsersCredentialsAreRefused403() {
        String header = answer(Algorithm.SHA_256, "alice", "wonderland", nonces.issue(REALM, NOW));
        var verdict = auth.check("REGISTER", List.of(header), "bob", REALM, NOW);
        assertEquals(new Authenticator.Verdict.Refused(403, "Credentials Do Not Match The AOR"), verdict);
    }

    @Test
    void aRightAnswerOnAnAgedNonceIsChallengedStaleAndAWrongOneNot() {
        String nonce = nonces.issue(REALM, NOW);
        long later = NOW + Duration.ofMinutes(6).toMillis();
        assertEquals(new Authenticator.Verdict.Challenge(true),
                auth.check("REGISTER", List.of(answer(Algorithm.MD5, "alice", "wonderland", nonce)), "alice", REALM, later));
        assertEquals(new Authenticator.Verdict.Challenge(false),
                auth.check("REGISTER", List.of(answer(Algorithm.MD5, "alice", "guess", nonce)), "alice", REALM, later));
    }

    @Test
    void aMadeUpNonceIsChallenged() {
        String forged = Long.toHexString(NOW) + ".AAAAAAAAAAAAAAAAAAAAAA";
        assertEquals(new Authenticator.Verdict.Challenge(false),
                auth.check("REGISTER", List.of(answer(Algorithm.MD5, "alice", "wonderland", forged)), "alice", REALM, NOW));
    }

    @Test
    void credentialsForAnotherRealmDoNotCountAndMalformedOnesAre400() {
        String other = answer(Algorithm.MD5, "alice", "wonderland", nonces.issue(REALM, NOW)).replace("realm=\"p2psip.test\"", "realm=\"elsewhere\"");
        assertEquals(new Authenticator.Verdict.Challenge(false), auth.check("REGISTER", List.of(other), "alice", REALM, NOW));
        assertEquals(new Authenticator.Verdict.Refused(400, "Malformed Credentials"),
                auth.check("REGISTER", List.of("Digest realm=\"p2psip.test"), "alice", REALM, NOW));
    }

    @Test
    void anAnswerInAnAlgorithmNotOfferedIsChallengedAgain() {
        var md5Only = new Authenticator(users, nonces, AuthOptions.algorithms("MD5"));
        String header = answer(Algorithm.SHA_256, "alice", "wonderland", nonces.issue(REALM, NOW));
        assertEquals(new Authenticator.Verdict.Challenge(false), md5Only.check("REGISTER", List.of(header), "alice", REALM, NOW));
        assertEquals(1, md5Only.challenges(REALM, false, NOW).size());
    }

    @Test
    void credentialsParseQuotedEscapesAndTokens() {
        var c = Credentials.parse("Digest username=\"a\\\"b\", realm=\"x, y\",nc=00000001 , qop=auth");
        assertEquals("a\"b", c.get("username"));
        assertEquals("x, y", c.get("realm"));
        assertEquals("00000001", c.get("nc"));
        assertEquals("auth", c.get("qop"));
        assertEquals("", c.get("cnonce"));
    }

    /** What a client answers to a challenge with {@code nonce}, as SIPp's [authentication] does. */
    static String answer(Algorithm a, String user, String password, String nonce) {
        return Digest.authorization(a, user, REALM, a.ha1(user, REALM, password), nonce, "00000001", "c0ffee", "REGISTER", URI);
    }
}
