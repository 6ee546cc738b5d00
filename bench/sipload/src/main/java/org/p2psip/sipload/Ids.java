package org.p2psip.sipload;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Branches, Call-IDs, tags and client nonces unique to this process: a random prefix (two loads
 * running at once, or one after another against the same server, never share one) and a counter.
 */
final class Ids {
    /** RFC 3261 §8.1.1.7: a branch starts with the magic cookie. */
    static final String MAGIC_COOKIE = "z9hG4bK";
    private final String prefix;
    private long counter;

    Ids() {
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        this.prefix = HexFormat.of().formatHex(random);
    }

    String branch() {
        return MAGIC_COOKIE + prefix + "." + Long.toHexString(++counter);
    }

    String callId() {
        return prefix + "-" + Long.toHexString(++counter) + "@sipload";
    }

    String tag() {
        return prefix + Long.toHexString(++counter);
    }

    /** A client nonce: unpredictable, so that the server's nonce alone never fixes the digest. */
    String cnonce() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong());
    }
}
