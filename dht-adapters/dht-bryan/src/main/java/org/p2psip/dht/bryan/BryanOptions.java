package org.p2psip.dht.bryan;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Option;

/**
 * The Bryan backend's options. The peer's own address is the node's SIP address
 * ({@code p2psip.sip.address}) and the secret is {@code p2psip.overlay.secret}: both NodeOptions.
 */
public final class BryanOptions {

    public static final Option<String> BOOTSTRAP = Option.string("p2psip.bryan.bootstrap", "",
            "127.0.0.1:25200", "SIP address (host:port) of any peer already in the overlay; empty: p2psip.overlay.bootstrap moved by this node's own overlay-to-SIP port difference (as deploy/p2psip lays nodes out), or none (this peer starts the overlay).");
    public static final Option<String> OVERLAY_NAME = Option.string("p2psip.bryan.overlay-name", "p2psip",
            "lab-ring", "The overlay= parameter of DHT-PeerID; a peer message naming another overlay is refused with 403.");
    public static final Option<Integer> SUCCESSORS = Option.integer("p2psip.bryan.successors", 4,
            "6", "Length of the successor list (DHT-Link S1..Sn); the ring survives this many adjacent failures less one.");
    public static final Option<Integer> REPLICAS = Option.integer("p2psip.bryan.replicas", 2,
            "3", "Successors of a resource's responsible peer that hold a copy of it; at most the successor-list length.");
    public static final Option<Duration> STABILIZE_INTERVAL = Option.duration("p2psip.bryan.stabilize-interval",
            Duration.ofSeconds(1), "500ms", "How often a peer REGISTERs with its successor and its predecessor (stabilisation, failure detection) and checks its replicas.");
    public static final Option<Duration> FIX_FINGERS_INTERVAL = Option.duration("p2psip.bryan.fix-fingers-interval",
            Duration.ofSeconds(1), "2s", "How often a peer looks up the next entry of its finger table.");
    public static final Option<Duration> STABILIZE_IDLE_INTERVAL = Option.duration("p2psip.bryan.stabilize-idle-interval",
            Duration.ofSeconds(4), "8s", "The longest wait between stabilisations: after each round that changed nothing the wait doubles from stabilize-interval up to this, and any change brings it back.");
    public static final Option<Duration> FIX_FINGERS_IDLE_INTERVAL = Option.duration("p2psip.bryan.fix-fingers-idle-interval",
            Duration.ofSeconds(8), "16s", "The longest wait between finger refreshes: after each refresh that found the finger unchanged the wait doubles from fix-fingers-interval up to this, and any change brings it back. Each place also checks, at first this often and up to 16 times less often while nothing is found, that no place lies unseen between it and its successor (a lookup of the key after it, started from one of its fingers).");
    public static final Option<Duration> REQUEST_TIMEOUT = Option.duration("p2psip.bryan.request-timeout",
            Duration.ofSeconds(1), "500ms", "Deadline of one peer REGISTER; no final answer by then counts as a timeout.");
    public static final Option<Integer> TIMEOUTS_BEFORE_FAILURE = Option.integer("p2psip.bryan.timeouts-before-failure", 3,
            "2", "Timeouts in a row of the ring's own REGISTERs (stabilisation, predecessor check, finger repair) after which a peer is taken for failed and dropped from the links.");
    public static final Option<Duration> OPERATION_TIMEOUT = Option.duration("p2psip.bryan.operation-timeout",
            Duration.ofSeconds(4), "2s", "Deadline of one get, put or remove, redirects and retries included.");
    public static final Option<Integer> MAX_HOPS = Option.integer("p2psip.bryan.max-hops", 32,
            "48", "Redirects (302) one attempt follows before it starts over from the peer's own links.");
    public static final Option<Duration> JOIN_RETRY_INTERVAL = Option.duration("p2psip.bryan.join-retry-interval",
            Duration.ofSeconds(1), "2s", "Wait between attempts to join through the bootstrap peer.");
    public static final Option<Duration> REPLICA_REFRESH_INTERVAL = Option.duration("p2psip.bryan.replica-refresh-interval",
            Duration.ofMinutes(1), "5m", "How often at most a peer copies all it is responsible for to its replicas again after a copy to one of them failed (changes of its links copy at once).");
    public static final Option<Duration> SWEEP_INTERVAL = Option.duration("p2psip.bryan.sweep-interval",
            Duration.ofMinutes(1), "30s", "How often expired records and removal markers are dropped from memory.");
    public static final Option<Duration> TOMBSTONE_RETENTION = Option.duration("p2psip.bryan.tombstone-retention",
            Duration.ofMinutes(10), "1h", "How long a removed record's marker is kept, so that a stale copy cannot bring it back.");
    public static final Option<Integer> COPY_BATCH_BYTES = Option.integer("p2psip.bryan.copy-batch-bytes", 8000,
            "1200", "Body size above which records copied to a replica or handed over, or operations batched to one peer, are split into several REGISTERs; keep it under about 14000 (the nodes read 16 KiB of a datagram).");
    public static final Option<Duration> BATCH_LINGER = Option.duration("p2psip.bryan.batch-linger",
            Duration.ofMillis(10), "0ms", "How long a write's copy or a routed operation waits for others bound to the same peer before their REGISTER leaves (also after the previous one to that peer was answered); 0: as soon as none is in flight.");
    public static final Option<Integer> PEER_WINDOW = Option.integer("p2psip.bryan.peer-window", 4,
            "1", "REGISTERs carrying operations, and REGISTERs carrying copies, in flight to one peer at once; past the first, one leaves only with a full batch.");
    public static final Option<String> TRANSPORT = Option.string("p2psip.bryan.transport", "tcp", "udp",
            "SIP transport of the peers' own REGISTERs: tcp (one connection to each peer it talks to: no retransmission timers, and the peers' messages do not wait behind the users' datagrams in the stack's queue) or udp.");
    public static final Option<Duration> REPLAY_WINDOW = Option.duration("p2psip.bryan.replay-window",
            Duration.ofSeconds(30), "1m", "How far the sent-at of a peer request's DHT-Stamp may lie from the receiver's clock, either way: a request outside it is refused (403 Stale Request), one inside it is served once (403 Replayed Request after), and a sender silent that long is forgotten. It also bounds the clock skew allowed between nodes: keep them on NTP.");
    public static final Option<Integer> PLACES = Option.integer("p2psip.bryan.places", 1,
            "32", "Places this peer takes on the ring (virtual nodes), each with its own range and links: place 0 at the SHA-1 of its SIP address, place i at the SHA-1 of address#i; every peer of an overlay takes the same number (a Peer-ID that is none of its address's places is refused). 1 is the draft's one Peer-ID per peer. With 32 the largest share of 2 to 8 peers at deploy's default addresses stays within 1.5/N (4 peers: 0.299), but four peers of 32 places take more than the default warm-up timeout to settle after up (see Places), so the default is 1.");

    public static final List<Option<?>> ALL = List.of(BOOTSTRAP, OVERLAY_NAME, SUCCESSORS, REPLICAS,
            STABILIZE_INTERVAL, STABILIZE_IDLE_INTERVAL, FIX_FINGERS_INTERVAL, FIX_FINGERS_IDLE_INTERVAL,
            REQUEST_TIMEOUT, TIMEOUTS_BEFORE_FAILURE, OPERATION_TIMEOUT, MAX_HOPS, JOIN_RETRY_INTERVAL, REPLICA_REFRESH_INTERVAL, SWEEP_INTERVAL, TOMBSTONE_RETENTION, COPY_BATCH_BYTES,
            BATCH_LINGER, PEER_WINDOW, TRANSPORT, REPLAY_WINDOW, PLACES);

    private BryanOptions() {
    }
}
