package org.p2psip.registrar;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The user part of a temporary GRUU: the AOR, the instance and the digest of the Call-ID it was
 * issued under, sealed with AES-GCM under a key every node derives from the overlay's secret. Any
 * node so maps a temporary GRUU another one issued back to its AOR and instance without shared
 * state, and nobody without the secret can: RFC 5627 §5.4 wants temporary GRUUs that cannot be
 * told to belong to one AOR (a fresh random salt makes each one new) and that cannot be forged
 * (the GCM tag). Thread-safe.
 *
 * <pre>
 * token     = base64url( format:u8 (=1)  salt:16  AES-256-GCM(key, nonce = 12 zero bytes, plaintext, aad = format) )
 * key       = HMAC-SHA-256(deployment key, salt);  deployment key = HMAC-SHA-256(overlay secret, label)
 * plaintext = aor:str  instance:str  callIdDigest:u64  zero padding to a multiple of 16 bytes
 * str       = u16 byte length, UTF-8
 * </pre>
 * Each token has a key of its own, from a random salt, because GCM under one key with random
 * nonces is safe for about 2^32 messages only, which a deployment issuing a GRUU with every
 * REGISTER would reach; a key sealing one message needs no nonce of its own. The padding blurs
 * the length of the AOR and instance, which would otherwise tell users' GRUUs apart.
 */
final class TemporaryGruuCipher {

    private static final int FORMAT = 1;
    private static final int SALT_BYTES = 16;
    private static final byte[] NONCE = new byte[12];
    private static final int TAG_BITS = 128;
    private static final int BLOCK = 16;
    private static final String KEY_LABEL = "p2psip temporary GRUU key, format 1";

    private final byte[] deploymentKey;
    private final SecureRandom random = new SecureRandom();

    /** Derives the deployment's key from {@code secret} (labelled, so that it is no other use's key); with "" a random key of this node alone. */
    TemporaryGruuCipher(String secret) {
        byte[] material = new byte[32];
        if (secret.isEmpty()) {
            random.nextBytes(material);
        } else {
            material = hmac(secret.getBytes(StandardCharsets.UTF_8), KEY_LABEL.getBytes(StandardCharsets.UTF_8));
        }
        this.deploymentKey = material;
    }

    /** A new token for the instance {@code urn} of {@code aor}, registered under a Call-ID of {@code callIdDigest}. */
    String seal(String aor, String urn, long callIdDigest) {
        byte[] aorBytes = aor.getBytes(StandardCharsets.UTF_8);
        byte[] urnBytes = urn.getBytes(StandardCharsets.UTF_8);
        int length = 2 + aorBytes.length + 2 + urnBytes.length + Long.BYTES;
        var plain = ByteBuffer.allocate((length + BLOCK - 1) / BLOCK * BLOCK)
                .putShort((short) aorBytes.length).put(aorBytes).putShort((short) urnBytes.length).put(urnBytes)
                .putLong(callIdDigest);
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        byte[] sealed;
        try {
            sealed = cipher(Cipher.ENCRYPT_MODE, salt).doFinal(plain.array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM refused to encrypt: " + e.getMessage(), e);
        }
        byte[] token = ByteBuffer.allocate(1 + SALT_BYTES + sealed.length).put((byte) FORMAT).put(salt).put(sealed).array();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(token);
    }

    /** What {@code token} names, or empty when this deployment did not issue it (or it was altered). */
    Optional<Gruu> open(String token) {
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (bytes.length < 1 + SALT_BYTES + TAG_BITS / 8 || bytes[0] != FORMAT) {
            return Optional.empty();
        }
        byte[] plain;
        try {
            plain = cipher(Cipher.DECRYPT_MODE, Arrays.copyOfRange(bytes, 1, 1 + SALT_BYTES))
                    .doFinal(bytes, 1 + SALT_BYTES, bytes.length - 1 - SALT_BYTES);
        } catch (AEADBadTagException e) {
            return Optional.empty(); // forged, altered, or sealed under another deployment's secret
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM refused to decrypt: " + e.getMessage(), e);
        }
        return read(ByteBuffer.wrap(plain));
    }

    private static Optional<Gruu> read(ByteBuffer in) {
        try {
            String aor = string(in);
            String urn = string(in);
            return Optional.of(new Gruu(Gruu.Kind.TEMPORARY, aor, urn, in.getLong()));
        } catch (BufferUnderflowException e) { // only a token sealed under our key gets here: a bug, not an attack
            return Optional.empty();
        }
    }

    private static String string(ByteBuffer in) {
        byte[] bytes = new byte[Short.toUnsignedInt(in.getShort())];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** A cipher for the one token of {@code salt}'s key (Cipher instances are not thread-safe either). */
    private Cipher cipher(int mode, byte[] salt) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            var key = new SecretKeySpec(hmac(deploymentKey, salt), "AES");
            cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, NONCE));
            cipher.updateAAD(new byte[] {FORMAT});
            return cipher;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every Java platform", e);
        }
    }

    private static byte[] hmac(byte[] secret, byte[] label) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return mac.doFinal(label);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java platform", e);
        }
    }
}
