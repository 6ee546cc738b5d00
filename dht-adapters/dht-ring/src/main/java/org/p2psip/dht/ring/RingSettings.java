package org.p2psip.dht.ring;

import java.time.Duration;

/**
 * The values the ring core runs with; each backend makes them from its own options. Immutable.
 *
 * @param successors            length of the successor list
 * @param replicas              successors that hold a copy of each record (0..successors)
 * @param stabilize             between stabilisations (and replica upkeep)
 * @param stabilizeIdle         the longest wait between stabilisations while nothing changes
 * @param fixFingers            between finger refreshes (one finger each)
 * @param fixFingersIdle        the longest wait between finger refreshes while fingers hold
 * @param checkPredecessor      between probes of the predecessor
 * @param requestTimeout        for one answer of a peer
 * @param operationTimeout      for one user's operation, whatever the retries
 * @param timeoutsBeforeFailure timeouts in a row before a peer is taken for failed
 * @param joinRetry             between join attempts while no member places this node
 * @param replicaRefresh        at most one full copy to the replicas per this, after a failed copy
 * @param sweep                 between sweeps of expired records
 * @param tombstoneRetention    how long a removal marker is kept
 * @param copyWindow            copy messages in flight to one replica at most
 * @param copyLinger            how long the first copy message waits for company
 * @param places                places each physical node takes on the ring ({@link VirtualNodes}); 1: one, its address's hash
 */
public record RingSettings(int successors, int replicas, Duration stabilize, Duration stabilizeIdle,
                           Duration fixFingers, Duration fixFingersIdle, Duration checkPredecessor,
                           Duration requestTimeout, Duration operationTimeout, int timeoutsBeforeFailure, Duration joinRetry, Duration replicaRefresh, Duration sweep,
                           Duration tombstoneRetention, int copyWindow, Duration copyLinger, int places) {

    public RingSettings {
        if (successors < 1) {
            throw new IllegalArgumentException("the successor list holds at least 1 node, not " + successors);
        }
        if (replicas < 0 || replicas > successors) {
            throw new IllegalArgumentException("replicas must be 0.." + successors + ", not " + replicas);
        }
        if (places < 1) {
            throw new IllegalArgumentException("a node takes at least 1 place on the ring, not " + places);
        }
        if (timeoutsBeforeFailure < 1) {
            throw new IllegalArgumentException("timeouts before failure must be at least 1, not " + timeoutsBeforeFailure);
        }
    }
}
