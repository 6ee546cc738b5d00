package org.p2psip.dht.chord;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Option;

/** The Chord backend's options; the node's address, bootstrap and secret are NodeOptions. */
public final class ChordOptions {

    public static final Option<String> NODE_ID = Option.string("p2psip.chord.node-id", "",
            "8f14e45fceea167a5a36dedd4bea2543a8f1b2c3", "This node's 160-bit id as 40 hex digits; empty: the SHA-1 of its overlay address.");
    public static final Option<Integer> SUCCESSORS = Option.integer("p2psip.chord.successors", 4,
            "8", "Length of the successor list; the ring survives this many adjacent failures less one.");
    public static final Option<Integer> REPLICAS = Option.integer("p2psip.chord.replicas", 2,
            "3", "Successors of a key's owner that hold a copy of each record; at most the successor-list length.");
    public static final Option<Duration> STABILIZE_INTERVAL = Option.duration("p2psip.chord.stabilize-interval",
            Duration.ofMillis(500), "250ms", "How often a node checks its successor and successor list (and its replicas' membership).");
    public static final Option<Duration> FIX_FINGERS_INTERVAL = Option.duration("p2psip.chord.fix-fingers-interval",
            Duration.ofMillis(500), "1s", "How often a node refreshes the next entry of its finger table.");
    public static final Option<Duration> STABILIZE_IDLE_INTERVAL = Option.duration("p2psip.chord.stabilize-idle-interval",
            Duration.ofSeconds(2), "4s", "The longest wait between stabilisations: after each round that changed nothing the wait doubles from stabilize-interval up to this, and any change brings it back.");
    public static final Option<Duration> FIX_FINGERS_IDLE_INTERVAL = Option.duration("p2psip.chord.fix-fingers-idle-interval",
            Duration.ofSeconds(8), "16s", "The longest wait between finger refreshes: after each refresh that found the finger unchanged the wait doubles from fix-fingers-interval up to this, and any change brings it back. Each place also checks, at first this often and up to 16 times less often while nothing is found, that no place lies unseen between it and its successor (a lookup of the key after it, started from one of its fingers).");
    public static final Option<Duration> CHECK_PREDECESSOR_INTERVAL = Option.duration("p2psip.chord.check-predecessor-interval",
            Duration.ofMillis(500), "1s", "How often a node checks that it heard from its predecessor (whose stabilisation asks it every round); one silent for a whole idle stabilisation is pinged and forgotten if it does not answer.");
    public static final Option<Duration> REQUEST_TIMEOUT = Option.duration("p2psip.chord.request-timeout",
            Duration.ofSeconds(1), "500ms", "Deadline of one node-to-node request; a peer silent that long counts as failed.");
    public static final Option<Duration> OPERATION_TIMEOUT = Option.duration("p2psip.chord.operation-timeout",
            Duration.ofSeconds(4), "2s", "Deadline of one get, put or remove, lookups and retries included.");
    public static final Option<Integer> MAX_HOPS = Option.integer("p2psip.chord.max-hops", 48,
            "32", "Steps a lookup may take before it is given up as looping.");
    public static final Option<Duration> JOIN_RETRY_INTERVAL = Option.duration("p2psip.chord.join-retry-interval",
            Duration.ofSeconds(1), "2s", "Wait between attempts to join through the bootstrap node.");
    public static final Option<Duration> REPLICA_REFRESH_INTERVAL = Option.duration("p2psip.chord.replica-refresh-interval",
            Duration.ofMinutes(1), "5m", "How often at most an owner copies all its records again to replicas after a copy to one of them failed (membership changes copy at once).");
    public static final Option<Duration> SWEEP_INTERVAL = Option.duration("p2psip.chord.sweep-interval",
            Duration.ofMinutes(1), "30s", "How often expired records and old removal markers are dropped from memory.");
    public static final Option<Duration> TOMBSTONE_RETENTION = Option.duration("p2psip.chord.tombstone-retention",
            Duration.ofMinutes(10), "1h", "How long a removed record's marker is kept, so a stale replica cannot bring it back.");
    public static final Option<Integer> PLACES = Option.integer("p2psip.chord.places", 64,
            "1", "Places this node takes on the ring (virtual nodes), each with its own range: place 0 at the node's id, place i at the SHA-1 of address#i. 64 keep the largest share of N nodes within 1.5/N; each place stabilises on its own, so the ring's upkeep costs as many times more.");

    public static final List<Option<?>> ALL = List.of(NODE_ID, SUCCESSORS, REPLICAS, STABILIZE_INTERVAL,
            STABILIZE_IDLE_INTERVAL, FIX_FINGERS_INTERVAL, FIX_FINGERS_IDLE_INTERVAL, CHECK_PREDECESSOR_INTERVAL,
            REQUEST_TIMEOUT, OPERATION_TIMEOUT, MAX_HOPS, JOIN_RETRY_INTERVAL, REPLICA_REFRESH_INTERVAL, SWEEP_INTERVAL,
            TOMBSTONE_RETENTION, PLACES);

    private ChordOptions() {
    }
}
