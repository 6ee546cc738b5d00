package org.p2psip.servlet;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import org.p2psip.auth.Algorithm;
import org.p2psip.auth.Digest;
import org.p2psip.auth.Users;

/**
 * The users of the file, and while the node warms up the users of its own warm-up: with
 * authentication on, every warm-up REGISTER was challenged, so the paths a registration takes
 * (and the check of its credentials) stayed cold, and the warm-up ran to its deadline. Its AORs
 * ({@code warmup-N@} the node's address, so of the default domain) answer with a password made
 * at start that never leaves the process, and that is forgotten once the node opens: from then on
 * a {@code warmup-} user is one of the file's, or nobody. Thread-safe.
 */
final class WarmupUsers implements Users {

    static final String PREFIX = "warmup-";

    private final Users file;
    private volatile String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));

    WarmupUsers(Users file) {
        this.file = file;
    }

    @Override
    public Optional<String> ha1(String user, String realm, Algorithm algorithm) {
        String warmup = password;
        if (warmup != null && user.startsWith(PREFIX)) {
            return Optional.of(algorithm.ha1(user, realm, warmup));
        }
        return file.ha1(user, realm, algorithm);
    }

    /** The Authorization value of a warm-up REGISTER of {@code user} to {@code uri}, answering {@code nonce}. */
    String authorization(String user, String realm, String uri, String nonce, Algorithm algorithm) {
        String warmup = password;
        if (warmup == null) {
            throw new IllegalStateException("the warm-up is over");
        }
        return Digest.authorization(algorithm, user, realm, algorithm.ha1(user, realm, warmup), nonce, "00000001",
                "warmup", "REGISTER", uri);
    }

    /** The warm-up is over: its users are nobody from now on. */
    void forget() {
        password = null;
    }
}
