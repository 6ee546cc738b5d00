package org.p2psip.auth;

import java.util.Optional;

/** Who may register: each user's HA1 per algorithm, never a password. */
public interface Users {

    /** The HA1 of {@code user} in {@code realm} (the user's domain) for {@code algorithm}; empty for a stranger. */
    Optional<String> ha1(String user, String realm, Algorithm algorithm);
}
