package org.p2psip.config;

import java.util.Arrays;
import java.util.List;

/**
 * The options every node has, whichever backend it runs. A backend reads its own options from
 * a class of its own ({@code ChordOptions}, ...) and these for what all share: where the node
 * is, how it finds the overlay, and the overlay's shared secret. deploy/p2psip writes them.
 */
public final class NodeOptions {

    public static final Option<String> DHT = Option.string("p2psip.dht", "memory", "chord",
            "The DHT backend this node runs, by the name it is registered under (org.p2psip.dht.Backend; `deploy/p2psip backends` lists them).");
    public static final Option<String> SIP_ADDRESS = Option.string("p2psip.sip.address", "127.0.0.1:5070",
            "127.0.0.1:5071", "This node's SIP address (host:port), as its connectors listen on it.");
    public static final Option<String> OVERLAY_ADDRESS = Option.string("p2psip.overlay.address", "127.0.0.1:6070",
            "127.0.0.1:6071", "Address (host:port) this node's backend listens on for node-to-node traffic.");
    public static final Option<String> OVERLAY_BOOTSTRAP = Option.string("p2psip.overlay.bootstrap", "",
            "127.0.0.1:6070", "Overlay address of any node already in the overlay; empty: this node starts a new one.");
    public static final Option<String> OVERLAY_MEMBERS = Option.string("p2psip.overlay.members", "",
            "127.0.0.1:6070,127.0.0.1:6071", "Overlay addresses of the deployment's nodes, comma-separated: Hazelcast's member list; where a Chord or Bamboo node without a bootstrap looks for the overlay before it starts one.");
    public static final Option<String> OVERLAY_SECRET = Option.string("p2psip.overlay.secret", "",
            "s3cret-from-deploy", "Shared secret of the overlay; node-to-node messages without it are refused, and it keys Digest nonces and temporary GRUUs. Networked backends refuse to start without one.");
    public static final Option<String> DATA_DIR = Option.string("p2psip.data.dir", "data",
            "/var/lib/p2psip/node-0", "Folder for the node's persistent data (Bamboo's Berkeley DB JE environment).");

    public static final Option<String> TLS_KEY_STORE = Option.string("p2psip.tls.key-store", "",
            "/var/lib/p2psip/tls/node-0.p12", "PKCS#12 file with this node's private key and its certificate chain, signed by the deployment's CA (deploy/p2psip up --tls makes it); empty: no TLS.");
    public static final Option<String> TLS_TRUST_STORE = Option.string("p2psip.tls.trust-store", "",
            "/var/lib/p2psip/tls/trust.p12", "PKCS#12 file with the certificates this node trusts: the deployment's CA. A peer must present a certificate it signed.");
    public static final Option<String> TLS_STORE_PASSWORD = Option.string("p2psip.tls.store-password", "",
            "from-deploy", "Password of the key store and the trust store (deploy/p2psip makes one per deployment; node.properties is readable by its owner only).");

    public static final List<Option<?>> ALL = List.of(DHT, SIP_ADDRESS, OVERLAY_ADDRESS, OVERLAY_BOOTSTRAP,
            OVERLAY_MEMBERS, OVERLAY_SECRET, DATA_DIR, TLS_KEY_STORE, TLS_TRUST_STORE, TLS_STORE_PASSWORD);

    private NodeOptions() {
    }

    /** Splits a comma-separated option value into its non-empty, trimmed items. */
    public static List<String> list(String value) {
        return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
