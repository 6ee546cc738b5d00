package org.p2psip.dht.chord;

import java.time.Duration;
import org.p2psip.config.Config;
import org.p2psip.dht.ring.RingOptions;
import org.p2psip.dht.ring.RingSettings;

/**
 * The Chord values a node runs with, read once from its configuration. Immutable.
 */
record ChordSettings(int successors, int replicas, Duration stabilize, Duration stabilizeIdle, Duration fixFingers,
                     Duration fixFingersIdle, Duration checkPredecessor,
                     Duration requestTimeout, Duration operationTimeout, int maxHops, Duration joinRetry,
                     Duration replicaRefresh, Duration sweep, Duration tombstoneRetention, int places,
                     int oneHopMaxNodes) {

    ChordSettings {
        if (successors < 1) {
            throw new IllegalArgumentException(ChordOptions.SUCCESSORS.name() + " must be at least 1");
        }
        if (replicas < 0 || replicas > successors) {
            throw new IllegalArgumentException(ChordOptions.REPLICAS.name() + " must be 0.." + successors);
        }
        if (places < 1) {
            throw new IllegalArgumentException(ChordOptions.PLACES.name() + " must be at least 1");
        }
        if (oneHopMaxNodes < 0) {
            throw new IllegalArgumentException(RingOptions.ONE_HOP_MAX_NODES.name() + " must be 0 or more, not " + oneHopMaxNodes);
        }
    }

    /** Timeouts in a row before a peer is taken for failed: one slow answer does not make a live node look dead. */
    static final int TIMEOUTS_BEFORE_SUSPICION = 3;

    /**
     * The ring core's settings: Chord probes its predecessor on its own interval, and sends a write's
     * copies to a replica one message at a time, at once (no linger).
     */
    RingSettings ring() {
        return new RingSettings(successors, replicas, stabilize, stabilizeIdle, fixFingers, fixFingersIdle,
                checkPredecessor, requestTimeout, operationTimeout, TIMEOUTS_BEFORE_SUSPICION, joinRetry, replicaRefresh, sweep, tombstoneRetention, 1,
                Duration.ZERO, places);
    }

    static ChordSettings from(Config c) {
        return new ChordSettings(c.get(ChordOptions.SUCCESSORS), c.get(ChordOptions.REPLICAS),
                c.get(ChordOptions.STABILIZE_INTERVAL), c.get(ChordOptions.STABILIZE_IDLE_INTERVAL),
                c.get(ChordOptions.FIX_FINGERS_INTERVAL), c.get(ChordOptions.FIX_FINGERS_IDLE_INTERVAL),
                c.get(ChordOptions.CHECK_PREDECESSOR_INTERVAL), c.get(ChordOptions.REQUEST_TIMEOUT),
                c.get(ChordOptions.OPERATION_TIMEOUT), c.get(ChordOptions.MAX_HOPS),
                c.get(ChordOptions.JOIN_RETRY_INTERVAL), c.get(ChordOptions.REPLICA_REFRESH_INTERVAL),
                c.get(ChordOptions.SWEEP_INTERVAL),
                c.get(ChordOptions.TOMBSTONE_RETENTION), c.get(ChordOptions.PLACES),
                c.get(RingOptions.ONE_HOP_MAX_NODES));
    }
}
