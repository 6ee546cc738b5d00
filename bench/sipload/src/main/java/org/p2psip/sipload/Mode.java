package org.p2psip.sipload;

import java.util.Locale;

/** What one registration is: the exchange each mode runs for it. */
public enum Mode {
    /** REGISTER, 200: a server without authentication. */
    PLAIN,
    /** REGISTER, 401, REGISTER with Authorization, 200: a phone registering after it starts. */
    FIRST,
    /**
     * REGISTER with Authorization on the nonce of an earlier registration (same Call-ID, CSeq + 1,
     * nc + 1), 200: a refresh within the nonce's life, one round trip. A 401 with stale=true is
     * answered once more with the new nonce.
     */
    REFRESH;

    /** The mode a command line names (plain, first, refresh). */
    public static Mode named(String name) {
        return valueOf(name.strip().toUpperCase(Locale.ROOT));
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
