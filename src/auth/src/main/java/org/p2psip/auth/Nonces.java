package org.p2psip.auth;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Nonces any node of a deployment can check without shared state: the issue time and an HMAC of
 * it (and the realm) under the overlay's secret. A client challenged by one node may answer
 * through another, and reuse the nonce for its refreshes while it lives.
 */
public final class Nonces {

    /** What a nonce in an answer is found to be. */
    public enum Verdict { FRESH, STALE, FORGED }

    private static final int MAC_BYTES = 16;
    private final SecretKeySpec key;
    private final long lifetimeMillis;

    public Nonces(String secret, Duration lifetime) {
        if (secret.isEmpty()) {
            throw new IllegalArgumentException("nonces need the overlay's secret");
        }
        this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
        this.lifetimeMillis = lifetime.toMillis();
    }

    /** A nonce for {@code realm}, issued at {@code nowMillis}. */
    public String issue(String realm, long nowMillis) {
        String time = Long.toHexString(nowMillis);
        return time + "." + mac(time, realm);
    }

    /**
     * FRESH when this deployment issued {@code nonce} for {@code realm} within its lifetime,
     * STALE when it did but longer ago (the client answers again with its credentials, RFC 7616
     * §3.3 stale=true), FORGED otherwise.
     */
    public Verdict check(String nonce, String realm, long nowMillis) {
        int dot = nonce.indexOf('.');
        if (dot <= 0 || dot > 16) {
            return Verdict.FORGED;
        }
        String time = nonce.substring(0, dot);
        long issued;
        try {
            issued = Long.parseUnsignedLong(time, 16);
        } catch (NumberFormatException e) {
            return Verdict.FORGED;
        }
        if (!java.security.MessageDigest.isEqual(mac(time, realm).getBytes(StandardCharsets.US_ASCII),
                nonce.substring(dot + 1).getBytes(StandardCharsets.US_ASCII))) {
            return Verdict.FORGED;
        }
        long age = nowMillis - issued;
        return age >= 0 && age <= lifetimeMillis ? Verdict.FRESH : Verdict.STALE;
    }

    private String mac(String time, String realm) {
        try {
            var mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            byte[] full = mac.doFinal((time + ":" + realm).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(full, MAC_BYTES));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java platform", e);
        }
    }
}
