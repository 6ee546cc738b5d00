package org.p2psip.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A nonce is checked by any node holding the secret, ages into stale, and cannot be made up. */
class NoncesTest {

    private final Nonces nonces = new Nonces("deployment secret", Duration.ofMinutes(5));

    @Test
    void aNonceIsFreshForItsLifetimeOnAnyNodeWithTheSecretThenStale() {
        String nonce = nonces.issue("p2psip.test", 1_000_000);
        var otherNode = new Nonces("deployment secret", Duration.ofMinutes(5));
        assertEquals(Nonces.Verdict.FRESH, otherNode.check(nonce, "p2psip.test", 1_000_000 + 300_000));
        assertEquals(Nonces.Verdict.STALE, otherNode.check(nonce, "p2psip.test", 1_000_000 + 300_001));
    }

    @Test
    void aNonceOfAnotherSecretOrRealmOrMadeUpIsForged() {
        String nonce = nonces.issue("p2psip.test", 1_000_000);
        assertEquals(Nonces.Verdict.FORGED, new Nonces("other", Duration.ofMinutes(5)).check(nonce, "p2psip.test", 1_000_000));
        assertEquals(Nonces.Verdict.FORGED, nonces.check(nonce, "other.test", 1_000_000));
        String later = Long.toHexString(2_000_000) + nonce.substring(nonce.indexOf('.'));
        assertEquals(Nonces.Verdict.FORGED, nonces.check(later, "p2psip.test", 2_000_000));
        assertEquals(Nonces.Verdict.FORGED, nonces.check("abc", "p2psip.test", 1_000_000));
        assertEquals(Nonces.Verdict.FORGED, nonces.check("zz.abc", "p2psip.test", 1_000_000));
    }
}
