package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.auth.Algorithm;

/** Which of a 401's challenges the client answers. */
class ChallengeTest {
    private static final List<String> NODE_CHALLENGES = List.of(
            "Digest realm=\"p2psip.test\", nonce=\"19a.abc\", algorithm=SHA-256, qop=\"auth\"",
            "Digest realm=\"p2psip.test\", nonce=\"19a.abc\", algorithm=MD5, qop=\"auth\"");

    @Test
    void theChallengeOfTheAlgorithmAskedForIsChosenWhateverItsPlace() {
        assertEquals(Algorithm.SHA_256, Challenge.choose(NODE_CHALLENGES, Algorithm.SHA_256).orElseThrow().algorithm());
        assertEquals(Algorithm.MD5, Challenge.choose(NODE_CHALLENGES, Algorithm.MD5).orElseThrow().algorithm());
    }

    @Test
    void noChallengeOfTheAlgorithmAskedForIsNone() {
        assertTrue(Challenge.choose(NODE_CHALLENGES.subList(1, 2), Algorithm.SHA_256).isEmpty());
    }

    @Test
    void anAbsentAlgorithmIsMd5AndStaleIsRead() {
        Challenge c = Challenge.parse("Digest realm=\"p2psip.test\", nonce=\"n\", qop=\"auth\", stale=TRUE").orElseThrow();
        assertEquals(Algorithm.MD5, c.algorithm());
        assertTrue(c.stale());
        assertEquals("p2psip.test", c.realm());
    }

    @Test
    void onlyAuthIntOrNoNonceOrNotDigestCannotBeAnswered() {
        assertTrue(Challenge.parse("Digest realm=\"r\", nonce=\"n\", qop=\"auth-int\"").isEmpty());
        assertTrue(Challenge.parse("Digest realm=\"r\", qop=\"auth\"").isEmpty());
        assertTrue(Challenge.parse("Basic realm=\"r\"").isEmpty());
    }
}
