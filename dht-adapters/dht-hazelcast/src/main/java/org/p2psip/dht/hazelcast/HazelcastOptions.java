package org.p2psip.dht.hazelcast;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Option;

/**
 * The Hazelcast backend's options. Where the member listens, whom it joins and the shared secret
 * are {@link org.p2psip.config.NodeOptions}; these are the few Hazelcast settings that matter here.
 */
public final class HazelcastOptions {

    public static final Option<String> CLUSTER_NAME = Option.string("p2psip.hazelcast.cluster-name", "p2psip",
            "p2psip-site-a", "Readable part of the cluster name; the name members use is this, a dash and a digest of the overlay secret.");
    public static final Option<String> MAP = Option.string("p2psip.hazelcast.map", "p2psip-bindings",
            "bindings-test", "Name of the IMap holding the bindings, one entry per AOR.");
    public static final Option<Integer> BACKUP_COUNT = Option.integer("p2psip.hazelcast.backup-count", 1,
            "2", "Synchronous backups of each entry: a write is acknowledged once they hold it, so this many members may fail at once without loss.");
    public static final Option<Integer> ASYNC_BACKUP_COUNT = Option.integer("p2psip.hazelcast.async-backup-count", 0,
            "1", "Further backups written after the acknowledgement; they can lose the last writes.");
    public static final Option<Duration> OPERATION_TIMEOUT = Option.duration("p2psip.hazelcast.operation-timeout",
            Duration.ofSeconds(2), "500ms", "Deadline of one get, put or remove; past it the operation fails with TIMEOUT (the servlet answers 503).");
    public static final Option<Duration> JOIN_TIMEOUT = Option.duration("p2psip.hazelcast.join-timeout",
            Duration.ofSeconds(5), "2s", "How long a starting member tries to reach the listed members before it starts a cluster of its own; also how long it then waits for its partitions to settle.");
    public static final Option<Duration> WAIT_BEFORE_JOIN = Option.duration("p2psip.hazelcast.wait-before-join",
            Duration.ofSeconds(1), "0s", "How long the master gathers join requests before admitting members in one step (whole seconds).");
    public static final Option<Duration> HEARTBEAT_TIMEOUT = Option.duration("p2psip.hazelcast.heartbeat-timeout",
            Duration.ofSeconds(15), "30s", "A member silent this long is declared dead and its backups take over; a closed connection is noticed sooner.");
    public static final Option<Duration> MERGE_INTERVAL = Option.duration("p2psip.hazelcast.merge-interval",
            Duration.ofSeconds(30), "2m", "How often a member looks for another cluster of the same name to merge with (after a split, or members that started apart).");
    public static final Option<Duration> SHUTDOWN_TIMEOUT = Option.duration("p2psip.hazelcast.shutdown-timeout",
            Duration.ofSeconds(30), "10s", "How long close() waits for this member's entries to move to the others before it leaves anyway.");
    public static final Option<Integer> CALLBACK_THREADS = Option.integer("p2psip.hazelcast.callback-threads", 2,
            "4", "Threads that complete the servlet's operations and send its SIP answers (Hazelcast's own threads may not start the next call).");
    public static final Option<Integer> PARTITION_COUNT = Option.integer("p2psip.hazelcast.partition-count", 271,
            "1999", "Partitions of the map; every member of a cluster must use the same number.");

    public static final List<Option<?>> ALL = List.of(CLUSTER_NAME, MAP, BACKUP_COUNT, ASYNC_BACKUP_COUNT,
            OPERATION_TIMEOUT, JOIN_TIMEOUT, WAIT_BEFORE_JOIN, HEARTBEAT_TIMEOUT, MERGE_INTERVAL, SHUTDOWN_TIMEOUT,
            CALLBACK_THREADS, PARTITION_COUNT);

    private HazelcastOptions() {
    }
}
