package org.p2psip.dht.hazelcast;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The Hazelcast cluster name of a deployment: its readable prefix, a dash, and the first 128 bits
 * of HMAC-SHA256(overlay secret, a fixed label and the prefix), in hex.
 *
 * <p>Hazelcast's open-source edition authenticates nothing: a member or client is admitted when it
 * presents the cluster's name. Deriving the name from the secret means a node configured without
 * the secret (another deployment, a stray test node) presents another name and is refused. The
 * name travels in clear in join and client requests, so anyone who can read the traffic can join;
 * the HMAC only keeps the secret itself (which other backends use as a key) from being read off the
 * wire. The README says what this does and does not protect. Stateless; thread-safe.
 */
final class ClusterName {

    private static final String LABEL = "p2psip hazelcast cluster name v1\n";

    private ClusterName() {
    }

    static String derive(String prefix, String secret) {
        if (secret.isEmpty()) {
            throw new IllegalArgumentException("p2psip.overlay.secret is empty: a Hazelcast member refuses to start "
                    + "without the deployment's shared secret, from which its cluster name is derived");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] digest = mac.doFinal((LABEL + prefix).getBytes(StandardCharsets.UTF_8));
            return prefix + "-" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java SE runtime", e);
        }
    }
}
