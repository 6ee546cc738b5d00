package org.p2psip.dht.bryan;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Config;
import org.p2psip.config.HostPort;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.ring.RingOptions;
import org.p2psip.dht.ring.RingSettings;

/** The values a peer runs with, read once from its configuration. Immutable. */
record BryanSettings(String overlay, String secret, int successors, int replicas, Duration stabilize,
                     Duration stabilizeIdle, Duration fixFingers, Duration fixFingersIdle, Duration requestTimeout, int timeoutsBeforeFailure,
                     Duration operationTimeout, int maxHops, Duration joinRetry, Duration replicaRefresh,
                     Duration sweep, Duration tombstoneRetention, int copyBatchBytes, Duration batchLinger,
                     int peerWindow, Duration replayWindow, int places, int oneHopMaxNodes) {

    BryanSettings {
        if (secret.isEmpty()) {
            throw new IllegalArgumentException(NodeOptions.OVERLAY_SECRET.name()
                    + " is required: peer REGISTERs are authenticated with it");
        }
        if (successors < 1) {
            throw new IllegalArgumentException(BryanOptions.SUCCESSORS.name() + " must be at least 1");
        }
        if (replicas < 0 || replicas > successors) {
            throw new IllegalArgumentException(BryanOptions.REPLICAS.name() + " must be 0.." + successors);
        }
        if (peerWindow < 1) {
            throw new IllegalArgumentException(BryanOptions.PEER_WINDOW.name() + " must be at least 1");
        }
        if (replayWindow.isNegative() || replayWindow.isZero()) {
            throw new IllegalArgumentException(BryanOptions.REPLAY_WINDOW.name() + " must be positive");
        }
        if (places < 1) {
            throw new IllegalArgumentException(BryanOptions.PLACES.name() + " must be at least 1");
        }
        if (oneHopMaxNodes < 0) {
            throw new IllegalArgumentException(RingOptions.ONE_HOP_MAX_NODES.name() + " must be 0 or more, not " + oneHopMaxNodes);
        }
        if (timeoutsBeforeFailure < 1) {
            throw new IllegalArgumentException(BryanOptions.TIMEOUTS_BEFORE_FAILURE.name() + " must be at least 1");
        }
    }

    static BryanSettings from(Config c) {
        return new BryanSettings(c.get(BryanOptions.OVERLAY_NAME), c.get(NodeOptions.OVERLAY_SECRET),
                c.get(BryanOptions.SUCCESSORS), c.get(BryanOptions.REPLICAS), c.get(BryanOptions.STABILIZE_INTERVAL),
                c.get(BryanOptions.STABILIZE_IDLE_INTERVAL), c.get(BryanOptions.FIX_FINGERS_INTERVAL),
                c.get(BryanOptions.FIX_FINGERS_IDLE_INTERVAL), c.get(BryanOptions.REQUEST_TIMEOUT),
                c.get(BryanOptions.TIMEOUTS_BEFORE_FAILURE), c.get(BryanOptions.OPERATION_TIMEOUT),
                c.get(BryanOptions.MAX_HOPS), c.get(BryanOptions.JOIN_RETRY_INTERVAL),
                c.get(BryanOptions.REPLICA_REFRESH_INTERVAL), c.get(BryanOptions.SWEEP_INTERVAL),
                c.get(BryanOptions.TOMBSTONE_RETENTION), c.get(BryanOptions.COPY_BATCH_BYTES),
                c.get(BryanOptions.BATCH_LINGER), c.get(BryanOptions.PEER_WINDOW),
                c.get(BryanOptions.REPLAY_WINDOW), c.get(BryanOptions.PLACES), c.get(RingOptions.ONE_HOP_MAX_NODES));
    }

    /**
     * The ring core's settings: a peer checks it heard from its predecessor at every stabilisation, and a
     * write's copies to one replica share the users' operations' window and linger.
     */
    RingSettings ring() {
        return new RingSettings(successors, replicas, stabilize, stabilizeIdle, fixFingers, fixFingersIdle, stabilize,
                requestTimeout, operationTimeout, timeoutsBeforeFailure, joinRetry, replicaRefresh, sweep,
                tombstoneRetention, peerWindow, batchLinger, places);
    }

    /**
     * The SIP address of the peer to join through: {@code p2psip.bryan.bootstrap}, else the node's
     * overlay bootstrap moved by this node's own overlay-to-SIP port difference (deploy/p2psip
     * writes only the overlay bootstrap, and lays out every node with the same difference, its
     * {@code --overlay-offset}), else empty.
     */
    static String bootstrap(Config c) {
        String explicit = c.get(BryanOptions.BOOTSTRAP).trim();
        if (!explicit.isEmpty()) {
            return explicit;
        }
        String overlay = c.get(NodeOptions.OVERLAY_BOOTSTRAP).trim();
        return overlay.isEmpty() ? "" : sipAddressOf(c, overlay);
    }

    /**
     * The SIP addresses of the other peers of the deployment: {@code p2psip.overlay.members} moved
     * as {@link #bootstrap} moves the overlay bootstrap, this peer left out. Where a peer without a
     * bootstrap looks for a ring before it starts one.
     */
    static List<String> members(Config c) {
        String self = c.get(NodeOptions.SIP_ADDRESS).trim();
        return NodeOptions.list(c.get(NodeOptions.OVERLAY_MEMBERS)).stream()
                .map(overlay -> sipAddressOf(c, overlay)).filter(sip -> !sip.equals(self)).distinct().toList();
    }

    private static String sipAddressOf(Config c, String overlay) {
        int offset = HostPort.from(c, NodeOptions.OVERLAY_ADDRESS).port() - HostPort.from(c, NodeOptions.SIP_ADDRESS).port();
        HostPort peer = HostPort.parse(overlay);
        return new HostPort(peer.host(), peer.port() - offset).toString();
    }
}
