package org.p2psip.front.wire;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * RFC 5626 flow tokens: the user part of the URI the front puts in a client's Path (and in the
 * Record-Route of a dialog it carries to the client), naming the client's TCP or TLS connection.
 * A token is the connection's id and a MAC of it under a key drawn when the front starts
 * (§5.2): nobody who has not seen a token can make one that reaches a connection, and a restarted
 * front (whose connections are all gone) refuses its predecessor's tokens, so the nodes hear 430
 * at once. 24 characters of base64url, all allowed in a SIP user part. Thread-safe.
 */
public final class FlowTokens {

    private static final int ID_BYTES = Long.BYTES;
    private static final int MAC_BYTES = 10;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final SecretKeySpec key;
    private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);

    public FlowTokens() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        this.key = new SecretKeySpec(secret, "HmacSHA256");
    }

    /** Length of every token: base64url of {@value #ID_BYTES} + {@value #MAC_BYTES} bytes, unpadded. */
    public static final int LENGTH = 24;

    /**
     * Whether a URI's user part has a token's shape (its MAC still to be checked): a Route naming
     * the front with any other user part is an ordinary route to it.
     */
    public static boolean looksLikeToken(String user) {
        if (user == null || user.length() != LENGTH) {
            return false;
        }
        for (int i = 0; i < LENGTH; i++) {
            char c = user.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128) && c != '-' && c != '_') {
                return false;
            }
        }
        return true;
    }

    /** The token of connection {@code id}. */
    public String token(long id) {
        byte[] out = ByteBuffer.allocate(ID_BYTES + MAC_BYTES).putLong(id).put(mac(id)).array();
        return ENCODER.encodeToString(out);
    }

    /** The connection a token names, or -1 if it is not one of this front's tokens. */
    public long connection(String token) {
        byte[] in;
        try {
            in = DECODER.decode(token);
        } catch (IllegalArgumentException e) {
            return -1;
        }
        if (in.length != ID_BYTES + MAC_BYTES) {
            return -1;
        }
        long id = ByteBuffer.wrap(in, 0, ID_BYTES).getLong();
        byte[] given = Arrays.copyOfRange(in, ID_BYTES, in.length);
        return MessageDigest.isEqual(given, mac(id)) && id != Destination.UDP ? id : -1;
    }

    private byte[] mac(long id) {
        Mac mac = macs.get();
        byte[] full = mac.doFinal(ByteBuffer.allocate(ID_BYTES).putLong(id).array());
        return Arrays.copyOf(full, MAC_BYTES);
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
