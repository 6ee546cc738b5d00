package org.p2psip.overlay;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Option;

/**
 * The transport's own options. Where the node listens, its bootstrap and the shared secret are
 * the {@link org.p2psip.config.NodeOptions} every backend shares.
 */
public final class OverlayOptions {

    public static final Option<Integer> MAX_FRAME_BYTES = Option.integer("p2psip.overlay.max-frame-bytes", 4 << 20,
            "1048576", "Largest frame (length prefix value) a node sends or accepts; a bigger one closes the connection.");
    public static final Option<Integer> MAX_IN_FLIGHT = Option.integer("p2psip.overlay.max-in-flight", 8192,
            "2048", "Requests a node may have awaiting answers at once; beyond it new requests fail OVERLOADED at once.");
    public static final Option<Integer> MAX_QUEUED_PER_PEER = Option.integer("p2psip.overlay.max-queued-per-peer", 1024,
            "256", "Requests queued for a peer while its connection is being opened; beyond it they fail OVERLOADED.");
    public static final Option<Integer> WRITE_BUFFER_BYTES = Option.integer("p2psip.overlay.write-buffer-bytes", 1 << 20,
            "262144", "Bytes waiting in a connection's outbound buffer above which requests to that peer fail OVERLOADED.");
    public static final Option<Duration> CONNECT_TIMEOUT = Option.duration("p2psip.overlay.connect-timeout",
            Duration.ofSeconds(1), "500ms", "How long opening a TCP connection to a peer may take before it counts as unreachable.");
    public static final Option<Duration> HANDSHAKE_PATIENCE = Option.duration("p2psip.overlay.handshake-patience",
            Duration.ofSeconds(5), "10s", "How long a connection may take to complete the handshake that proves it holds the overlay secret: an accepted one still without it is closed as a stranger, an opened one as refused.");
    public static final Option<Boolean> TLS = Option.bool("p2psip.overlay.tls", false, "true",
            "Run every overlay connection through mutual TLS (TLS 1.3) with the node's p2psip.tls.key-store and p2psip.tls.trust-store, besides the handshake and the batches' MACs; a peer must present a certificate the trust store's CA signed.");

    public static final List<Option<?>> ALL = List.of(MAX_FRAME_BYTES, MAX_IN_FLIGHT, MAX_QUEUED_PER_PEER,
            WRITE_BUFFER_BYTES, CONNECT_TIMEOUT, HANDSHAKE_PATIENCE, TLS);

    private OverlayOptions() {
    }
}
