package org.p2psip.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/** A digest algorithm of RFC 7616 (and RFC 8760 for SIP): its name on the wire and its hash. */
public enum Algorithm {
    SHA_256("SHA-256", "SHA-256"),
    MD5("MD5", "MD5");

    private final String wireName;
    private final String javaName;

    Algorithm(String wireName, String javaName) {
        this.wireName = wireName;
        this.javaName = javaName;
    }

    /** The name in a challenge's or an answer's {@code algorithm} parameter. */
    public String wireName() {
        return wireName;
    }

    /** The algorithm an answer names; absent means MD5 (RFC 3261 §22.4, RFC 7616 §3.3). */
    public static Optional<Algorithm> named(String wire) {
        if (wire == null || wire.isEmpty()) {
            return Optional.of(MD5);
        }
        for (Algorithm a : values()) {
            if (a.wireName.equalsIgnoreCase(wire)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** Lower-case hex of the hash of {@code text} in UTF-8. */
    public String hex(String text) {
        try {
            var digest = MessageDigest.getInstance(javaName);
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(javaName + " is part of every Java platform", e);
        }
    }

    /** HA1 = H(user:realm:password), what a node keeps instead of the password. */
    public String ha1(String user, String realm, String password) {
        return hex(user + ":" + realm + ":" + password);
    }
}
