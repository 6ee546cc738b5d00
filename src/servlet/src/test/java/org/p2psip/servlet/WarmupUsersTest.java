package org.p2psip.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.p2psip.auth.Algorithm;
import org.p2psip.auth.Authenticator;
import org.p2psip.auth.Nonces;
import org.p2psip.auth.Users;

class WarmupUsersTest {

    private static final String REALM = "p2psip.test";
    private static final long NOW = 1_000_000L;
    private final Users file = (user, realm, algorithm) ->
            user.equals("alice") ? Optional.of(algorithm.ha1("alice", realm, "wonderland")) : Optional.empty();
    private final WarmupUsers users = new WarmupUsers(file);
    private final Nonces nonces = new Nonces("secret", Duration.ofMinutes(5));
    private final Authenticator authenticator = new Authenticator(users, nonces, List.of(Algorithm.SHA_256, Algorithm.MD5));

    @Test
    void aWarmupRegisterCarriesCredentialsTheNodeAcceptsWhileItWarmsUp() {
        String authorization = users.authorization("warmup-7", REALM, "sip:127.0.0.1:5070", nonces.issue(REALM, NOW),
                Algorithm.SHA_256);
        assertInstanceOf(Authenticator.Verdict.Accepted.class,
                authenticator.check("REGISTER", List.of(authorization), "warmup-7", REALM, NOW));
    }

    @Test
    void onceTheNodeOpensAWarmupUserIsNobody() {
        String authorization = users.authorization("warmup-7", REALM, "sip:127.0.0.1:5070", nonces.issue(REALM, NOW),
                Algorithm.SHA_256);
        users.forget();
        assertInstanceOf(Authenticator.Verdict.Challenge.class,
                authenticator.check("REGISTER", List.of(authorization), "warmup-7", REALM, NOW),
                "the same credentials, after the warm-up: challenged, as a stranger's");
        assertEquals(Optional.empty(), users.ha1("warmup-7", REALM, Algorithm.MD5));
    }

    @Test
    void theFilesUsersAreAnsweredThroughout() {
        var expected = Optional.of(Algorithm.MD5.ha1("alice", REALM, "wonderland"));
        assertEquals(expected, users.ha1("alice", REALM, Algorithm.MD5));
        users.forget();
        assertEquals(expected, users.ha1("alice", REALM, Algorithm.MD5));
    }
}
