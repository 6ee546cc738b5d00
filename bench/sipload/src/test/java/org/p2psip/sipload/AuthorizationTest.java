package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.auth.Algorithm;
import org.p2psip.auth.Credentials;

/** The client's answers against the worked examples of RFC 7616 §3.9.1 and RFC 2617 §3.5. */
class AuthorizationTest {
    private static final String RFC7616_CHALLENGE = "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", "
            + "algorithm=%s, nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", "
            + "opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\"";
    private static final String RFC7616_CNONCE = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ";

    @Test
    void rfc7616ExampleWithSha256GivesTheRfcsAnswer() {
        Credentials answer = answerRfc7616(Algorithm.SHA_256);
        assertEquals("753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", answer.get("response"));
        assertEquals("SHA-256", answer.get("algorithm"));
        assertRfc7616Fields(answer);
    }

    @Test
    void rfc7616ExampleWithMd5GivesTheRfcsAnswer() {
        Credentials answer = answerRfc7616(Algorithm.MD5);
        assertEquals("8ca523f5e9506fed4657c9700eebdbec", answer.get("response"));
        assertEquals("MD5", answer.get("algorithm"));
        assertRfc7616Fields(answer);
    }

    @Test
    void rfc2617ExampleGivesTheRfcsAnswer() {
        Challenge challenge = Challenge.parse("Digest realm=\"testrealm@host.com\", qop=\"auth,auth-int\", "
                + "nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"").orElseThrow();
        String ha1 = Algorithm.MD5.ha1("Mufasa", "testrealm@host.com", "Circle Of Life");
        Credentials answer = Credentials.parse(Authorization.value("Mufasa", ha1, challenge, 1, "0a4f113b", "GET",
                "/dir/index.html"));
        assertEquals("6629fae49393a05397450978507c4ef1", answer.get("response"));
        assertEquals("5ccc069c403ebaf9f0171e9517f40e41", answer.get("opaque"));
    }

    @Test
    void theNonceCountIsEightHexDigitsAndCountsUp() {
        assertEquals("00000001", Authorization.nonceCount(1));
        assertEquals("0000001a", Authorization.nonceCount(26));
        Challenge challenge = Challenge.choose(List.of(String.format(RFC7616_CHALLENGE, "MD5")), Algorithm.MD5).orElseThrow();
        String second = Authorization.value("Mufasa", "ha1", challenge, 2, "c", "REGISTER", "sip:p2psip.test");
        assertEquals("00000002", Credentials.parse(second).get("nc"));
    }

    @Test
    void aChallengeWithoutQopIsAnsweredWithoutNcOrCnonce() {
        Challenge challenge = Challenge.parse("Digest realm=\"p2psip.test\", nonce=\"n1\", algorithm=MD5").orElseThrow();
        Credentials answer = Credentials.parse(Authorization.value("bob", "h", challenge, 1, "c", "REGISTER", "sip:p2psip.test"));
        assertFalse(answer.params().containsKey("nc"));
        assertFalse(answer.params().containsKey("cnonce"));
        assertFalse(answer.params().containsKey("qop"));
    }

    private static Credentials answerRfc7616(Algorithm algorithm) {
        Challenge challenge = Challenge.choose(List.of(String.format(RFC7616_CHALLENGE, algorithm.wireName())), algorithm)
                .orElseThrow();
        String ha1 = algorithm.ha1("Mufasa", "http-auth@example.org", "Circle of Life");
        return Credentials.parse(Authorization.value("Mufasa", ha1, challenge, 1, RFC7616_CNONCE, "GET", "/dir/index.html"));
    }

    private static void assertRfc7616Fields(Credentials answer) {
        assertEquals("Mufasa", answer.get("username"));
        assertEquals("http-auth@example.org", answer.get("realm"));
        assertEquals("/dir/index.html", answer.get("uri"));
        assertEquals("7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", answer.get("nonce"));
        assertEquals("00000001", answer.get("nc"));
        assertEquals(RFC7616_CNONCE, answer.get("cnonce"));
        assertEquals("auth", answer.get("qop"));
        assertEquals("FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", answer.get("opaque"));
    }
}
