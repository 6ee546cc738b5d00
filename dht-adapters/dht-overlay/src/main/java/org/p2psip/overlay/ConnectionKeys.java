package org.p2psip.overlay;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys of one connection, derived from the overlay's secret and its handshake's transcript
 * (the fresh nonces both ends sent, and the opener's address) with HKDF (RFC 5869) over
 * HMAC-SHA256, the transcript as HKDF's salt:
 *
 * <pre>
 * transcript  = openerNonce:32 || acceptorNonce:32 || sender (the opener's address, UTF-8)
 * prk         = HMAC-SHA256(key = transcript, secret)                          HKDF-Extract
 * key(label)  = HMAC-SHA256(key = prk, label || 0x01)                          HKDF-Expand, 32 bytes
 * proof(side) = HMAC-SHA256(key("p2psip overlay 3 proof " + side), transcript)
 * </pre>
 *
 * with the labels "p2psip overlay 3 proof opener", "... proof acceptor", "p2psip overlay 3 batches
 * opener" and "... batches acceptor": each side's proof, and the batch key of each direction
 * (named for the side that writes it). Separate labels keep a value made for one use from passing
 * for another: a side's proof is never the other's, nor a batch's MAC. Since both nonces go into
 * every key, no two connections share one, and a proof or batch captured on one connection fails
 * on any other; since the opener's address does too, a proof holds only for the address its hello
 * claimed. Immutable; {@link #proof} and {@link #batches} may be called from any thread.
 */
public final class ConnectionKeys {

    /** The end of a connection: the node that opened it or the one that accepted it. */
    public enum Side {
        OPENER, ACCEPTOR;

        Side other() {
            return this == OPENER ? ACCEPTOR : OPENER;
        }

        private String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Bytes of each side's nonce: 256 bits, so a nonce never repeats. */
    public static final int NONCE_BYTES = 32;
    private static final String LABEL = "p2psip overlay " + Handshake.VERSION + " ";
    private static final SecureRandom NONCES = new SecureRandom();

    private final byte[] prk;
    private final byte[] transcript;

    private ConnectionKeys(byte[] prk, byte[] transcript) {
        this.prk = prk;
        this.transcript = transcript;
    }

    /** A fresh random nonce for one side of one handshake. */
    public static byte[] nonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        NONCES.nextBytes(nonce);
        return nonce;
    }

    /** The keys of the connection whose handshake exchanged these nonces and {@code sender}. */
    public static ConnectionKeys derive(byte[] secret, byte[] openerNonce, byte[] acceptorNonce, String sender) {
        byte[] transcript = concat(concat(openerNonce, acceptorNonce), sender.getBytes(StandardCharsets.UTF_8));
        return new ConnectionKeys(hmac(transcript, secret), transcript);
    }

    /** What {@code side} sends to prove it holds the secret. */
    public byte[] proof(Side side) {
        return hmac(expand("proof " + side.label()), transcript);
    }

    /** The MAC of the batches {@code writer} writes on this connection, at its first batch. */
    public BatchMac batches(Side writer) {
        return new BatchMac(newMac(expand("batches " + writer.label())));
    }

    private byte[] expand(String label) {
        return hmac(prk, concat((LABEL + label).getBytes(StandardCharsets.UTF_8), new byte[] {1}));
    }

    private static byte[] hmac(byte[] key, byte[] message) {
        return newMac(key).doFinal(message);
    }

    static Mac newMac(byte[] key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
