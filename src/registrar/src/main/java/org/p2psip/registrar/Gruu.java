package org.p2psip.registrar;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.p2psip.dht.Binding;

/**
 * What a GRUU (RFC 5627) in a Request-URI names: one instance of an AOR's user agents. A public
 * GRUU names the instance for as long as it registers; a temporary one only its registration
 * under the Call-ID the GRUU was issued for (§3.2): once the instance registers with a new Call-ID
 * the temporary GRUU reaches nothing. {@link Gruus#resolve} reads one, {@link RegistrarService#locate(Gruu)}
 * finds the bindings it reaches.
 *
 * @param kind         public or temporary
 * @param aor          the AOR, as the registrar stores it
 * @param instance     the instance ID, a URN without quotes or angle brackets ("urn:uuid:...")
 * @param callIdDigest for a temporary GRUU, {@link #digestOf} the Call-ID it was issued under; 0 for a public one
 */
public record Gruu(Kind kind, String aor, String instance, long callIdDigest) {

    public enum Kind { PUBLIC, TEMPORARY }

    /** Whether {@code binding} is a registration of this GRUU's instance. */
    public boolean names(Binding binding) {
        return instance.equals(urnOf(binding.instance()));
    }

    /** Whether a request to this GRUU goes to {@code binding}: its instance's, and for a temporary GRUU under its Call-ID. */
    public boolean reaches(Binding binding) {
        return names(binding) && (kind == Kind.PUBLIC || digestOf(binding.callId()) == callIdDigest);
    }

    /**
     * The URN of a {@code +sip.instance} value as the container reads it ({@code "<urn:uuid:...>"},
     * RFC 5626 §4.1 puts the URN in angle brackets and the brackets in quotes); "" for none.
     */
    public static String urnOf(String instance) {
        String urn = instance.strip();
        if (urn.length() >= 2 && urn.startsWith("\"") && urn.endsWith("\"")) {
            urn = urn.substring(1, urn.length() - 1);
        }
        if (urn.length() >= 2 && urn.startsWith("<") && urn.endsWith(">")) {
            urn = urn.substring(1, urn.length() - 1);
        }
        return urn;
    }

    /**
     * Eight bytes of SHA-256 of a Call-ID: what a temporary GRUU keeps of the registration it was
     * issued for, since the Call-ID itself may be long and need not travel in every GRUU. Two
     * Call-IDs of one instance meeting on the same digest is a chance of one in 2^64.
     */
    public static long digestOf(String callId) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(callId.getBytes(StandardCharsets.UTF_8));
            long digest = 0;
            for (byte b : Arrays.copyOf(hash, Long.BYTES)) {
                digest = digest << 8 | (b & 0xFF);
            }
            return digest;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }
}
