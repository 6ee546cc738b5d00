package org.p2psip.registrar;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.Binding;

/**
 * GRUUs (RFC 5627) without state of their own: what the registrar gives a registered instance,
 * and what a Request-URI that is one names. A public GRUU is the AOR with a {@code gr} parameter
 * holding the instance's URN (RFC 5627 §5.4's suggestion), so that it is the same at every registration
 * and on every node. A temporary GRUU is {@code sip:tgruu.<token>@<domain>;gr}, its token sealed
 * by {@link TemporaryGruuCipher}; it carries the digest of the registration's Call-ID, checked
 * against the instance's binding when a request comes, so that it reaches the instance until the
 * instance registers with another Call-ID (§3.2) and nothing needs storing beyond the binding,
 * which already holds the Call-ID. Thread-safe.
 */
public final class Gruus {

    /** What starts the user part of every temporary GRUU. */
    static final String TEMPORARY_USER_PREFIX = "tgruu.";
    /** RFC 3261 §25.1 paramchar besides alphanumerics: what a gr value may hold unescaped. */
    private static final String PARAMCHAR_MARKS = "[]/:&+$-_.!~*'()";

    private final TemporaryGruuCipher cipher;

    /** GRUUs under the overlay's {@code secret}; "" makes temporary ones this node alone resolves. */
    public Gruus(String secret) {
        this.cipher = new TemporaryGruuCipher(secret);
    }

    /** GRUUs under {@code p2psip.overlay.secret}, which every node of a deployment shares. */
    public static Gruus from(Config config) {
        return new Gruus(config.get(NodeOptions.OVERLAY_SECRET));
    }

    /** The two GRUUs a 200 to a REGISTER gives one binding, as its pub-gruu and temp-gruu parameters. */
    public record Issued(String publicGruu, String temporaryGruu) {
    }

    /**
     * The GRUUs of every binding with an instance: RFC 5627 §5.2 has a 200 carry, with each such contact,
     * its public GRUU and the temporary GRUU created last, and this one is created now.
     */
    public Map<Binding, Issued> issueFor(List<Binding> bindings) {
        Map<Binding, Issued> issued = new LinkedHashMap<>();
        for (Binding binding : bindings) {
            if (!Gruu.urnOf(binding.instance()).isEmpty()) {
                issued.put(binding, new Issued(publicGruu(binding.aor(), binding.instance()),
                        temporaryGruu(binding.aor(), binding.instance(), binding.callId())));
            }
        }
        return issued;
    }

    /** The public GRUU of {@code instance} (a +sip.instance value) of {@code aor}. */
    public String publicGruu(String aor, String instance) {
        return aor + ";gr=" + escape(Gruu.urnOf(instance));
    }

    /** A new temporary GRUU of {@code instance} of {@code aor}, registered under {@code callId}. */
    public String temporaryGruu(String aor, String instance, String callId) {
        String token = cipher.seal(aor, Gruu.urnOf(instance), Gruu.digestOf(callId));
        return "sip:" + TEMPORARY_USER_PREFIX + token + "@" + domainOf(aor) + ";gr";
    }

    /**
     * What a Request-URI names when it is a GRUU of this deployment: {@code aor} is its AOR as the
     * proxy reads any Request-URI ({@code sip:user@domain}), {@code gr} its gr parameter (null when
     * it has none, "" when it has no value). Empty when it is no GRUU, or a temporary one this
     * deployment did not issue: then the Request-URI is an AOR like any other.
     */
    public Optional<Gruu> resolve(String aor, String gr) {
        if (gr == null) {
            return Optional.empty();
        }
        if (!gr.isEmpty()) {
            return Optional.of(new Gruu(Gruu.Kind.PUBLIC, aor, unescape(gr), 0));
        }
        String user = userOf(aor);
        if (!user.startsWith(TEMPORARY_USER_PREFIX)) {
            return Optional.empty();
        }
        return cipher.open(user.substring(TEMPORARY_USER_PREFIX.length()))
                .filter(gruu -> domainOf(gruu.aor()).equalsIgnoreCase(domainOf(aor)));
    }

    private static String domainOf(String aor) {
        return aor.substring(Math.max(aor.lastIndexOf('@') + 1, aor.indexOf(':') + 1));
    }

    private static String userOf(String aor) {
        int at = aor.lastIndexOf('@');
        return at < 0 ? "" : aor.substring(aor.indexOf(':') + 1, at);
    }

    private static String escape(String value) {
        var out = new StringBuilder(value.length());
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xFF);
            boolean plain = c < 0x80 && (Character.isLetterOrDigit(c) || PARAMCHAR_MARKS.indexOf(c) >= 0);
            out.append(plain ? String.valueOf(c) : String.format("%%%02X", b & 0xFF));
        }
        return out.toString();
    }

    private static String unescape(String value) {
        if (value.indexOf('%') < 0) {
            return value;
        }
        var bytes = new java.io.ByteArrayOutputStream(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '%' && i + 2 < value.length() && Character.digit(value.charAt(i + 1), 16) >= 0
                    && Character.digit(value.charAt(i + 2), 16) >= 0) {
                bytes.write(Integer.parseInt(value.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
