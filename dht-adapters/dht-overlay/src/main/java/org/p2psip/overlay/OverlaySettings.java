package org.p2psip.overlay;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;

/**
 * The values a transport runs with, read once from the node's configuration. Immutable.
 *
 * @param secret          the overlay's shared secret; connections are authenticated with it
 * @param maxFrameBytes   largest length prefix accepted or sent
 * @param maxInFlight     requests awaiting answers at once
 * @param maxQueuedPerPeer requests queued while a connection opens
 * @param writeBufferBytes outbound bytes per connection above which the peer counts as overloaded
 * @param connectTimeout  how long a TCP connect may take
 * @param handshakePatience how long a connection may take to complete the handshake
 * @param tls             mutual TLS on every connection, when the node has it on
 */
public record OverlaySettings(byte[] secret, int maxFrameBytes, int maxInFlight, int maxQueuedPerPeer,
                              int writeBufferBytes, Duration connectTimeout, Duration handshakePatience,
                              Optional<OverlayTls> tls) {

    public OverlaySettings {
        if (secret.length == 0) {
            throw new IllegalArgumentException(NodeOptions.OVERLAY_SECRET.name()
                    + " is empty: a node refuses to join an overlay without its shared secret");
        }
        if (maxFrameBytes < FrameCodec.MIN_LENGTH) {
            throw new IllegalArgumentException("max frame size below " + FrameCodec.MIN_LENGTH + " bytes");
        }
        if (handshakePatience.isNegative() || handshakePatience.isZero()) {
            throw new IllegalArgumentException(OverlayOptions.HANDSHAKE_PATIENCE.name() + " must be positive");
        }
        Objects.requireNonNull(tls, "tls");
    }

    /**
     * Reads the settings; refuses (IllegalArgumentException) a configuration without a secret, or
     * with TLS on and a store missing or unreadable.
     */
    public static OverlaySettings from(Config config) {
        return new OverlaySettings(config.get(NodeOptions.OVERLAY_SECRET).getBytes(StandardCharsets.UTF_8),
                config.get(OverlayOptions.MAX_FRAME_BYTES), config.get(OverlayOptions.MAX_IN_FLIGHT),
                config.get(OverlayOptions.MAX_QUEUED_PER_PEER), config.get(OverlayOptions.WRITE_BUFFER_BYTES),
                config.get(OverlayOptions.CONNECT_TIMEOUT), config.get(OverlayOptions.HANDSHAKE_PATIENCE), OverlayTls.from(config));
    }

    /** Defaults with the given secret, for tests and simulations. */
    public static OverlaySettings withSecret(String secret) {
        return from(Config.empty().with(NodeOptions.OVERLAY_SECRET.name(), secret));
    }
}
