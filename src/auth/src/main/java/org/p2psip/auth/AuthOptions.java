package org.p2psip.auth;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Option;

/** Digest authentication's options (read from the node's configuration). */
public final class AuthOptions {

    public static final Option<Boolean> ENABLED = Option.bool("p2psip.auth.enabled", false, "true",
            "Whether a REGISTER must carry Digest credentials of its AOR's user (401 challenge otherwise); off, the node accepts anyone and says so once at start.");
    public static final Option<String> USERS_FILE = Option.string("p2psip.auth.users-file", "", "/etc/p2psip/users.csv",
            "File of user,domain,md5-ha1,sha256-ha1 lines every node reads; read again when it changes.");
    public static final Option<Duration> USERS_RELOAD = Option.duration("p2psip.auth.users-reload-interval", Duration.ofSeconds(1), "10s",
            "How often a node looks whether the users file changed.");
    public static final Option<Duration> NONCE_LIFETIME = Option.duration("p2psip.auth.nonce-lifetime", Duration.ofMinutes(5), "1h",
            "How long a challenge's nonce is accepted; an answer with an older one gets 401 with stale=true.");

    public static final Option<String> ALGORITHMS = Option.string("p2psip.auth.algorithms", "SHA-256,MD5", "MD5",
            "Digest algorithms a challenge offers, one WWW-Authenticate each, most preferred first (RFC 8760); answers in others are challenged again. SIPp 3.6 reads only the first and knows only MD5.");

    public static final Option<Boolean> INVITE = Option.bool("p2psip.auth.invite", false, "true",
            "With p2psip.auth.enabled, whether an INVITE from a user of a served domain must also carry that user's credentials (407 challenge otherwise).");

    public static final List<Option<?>> ALL = List.of(ENABLED, USERS_FILE, USERS_RELOAD, NONCE_LIFETIME, ALGORITHMS, INVITE);

    /** The algorithms {@link #ALGORITHMS} names; IllegalArgumentException for an unknown one or none. */
    public static List<Algorithm> algorithms(String names) {
        var out = new java.util.ArrayList<Algorithm>();
        for (String name : names.split(",")) {
            if (!name.isBlank()) {
                out.add(Algorithm.named(name.strip()).orElseThrow(() ->
                        new IllegalArgumentException(ALGORITHMS.name() + ": unknown algorithm " + name.strip())));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(ALGORITHMS.name() + " names no algorithm");
        }
        return List.copyOf(out);
    }

    private AuthOptions() {
    }
}
