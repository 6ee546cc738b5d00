package org.p2psip.dht.bamboo;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Option;

/**
 * The Bamboo backend's own options; where the node is, how it joins, the overlay secret and the
 * data folder come from {@link org.p2psip.config.NodeOptions}. The README's table is checked
 * against {@link #ALL}.
 */
public final class BambooOptions {

    public static final Option<Integer> DIGIT_BITS = Option.integer("p2psip.bamboo.digit.bits", 4, "4",
            "Bits per digit of the prefix routing table (Pastry's b): 2^b columns, 160/b rows.");
    public static final Option<Integer> LEAF_SET_SIDE = Option.integer("p2psip.bamboo.leafset.side", 4, "8",
            "Leaf-set members kept on each side of the node (clockwise and counter-clockwise).");
    public static final Option<Integer> REPLICAS = Option.integer("p2psip.bamboo.replicas", 2, "3",
            "Copies of each key on the root's leaf-set neighbours, besides the root itself.");
    public static final Option<Duration> LEAF_SET_PERIOD = Option.duration("p2psip.bamboo.leafset.period", Duration.ofSeconds(1),
            "5s", "Base period of leaf-set maintenance: the node exchanges leaf sets with one member chosen at random.");
    public static final Option<Duration> LEAF_SET_IDLE = Option.duration("p2psip.bamboo.leafset.idle", Duration.ofSeconds(30),
            "1m", "Longest wait between leaf-set exchanges: it doubles from leafset.period after each round with no leaf-set change, and any change brings it back.");
    public static final Option<Duration> KEEPALIVE = Option.duration("p2psip.bamboo.keepalive", Duration.ofSeconds(5),
            "2s", "A leaf-set member not heard from for this long is pinged; three pings in a row unanswered, each waiting timeout.max, drop it.");
    public static final Option<Duration> TABLE_PERIOD = Option.duration("p2psip.bamboo.table.period", Duration.ofSeconds(5),
            "20s", "Base period of routing-table maintenance: one row is refreshed from a neighbour and by a lookup.");
    public static final Option<Duration> TABLE_IDLE = Option.duration("p2psip.bamboo.table.idle", Duration.ofMinutes(1),
            "5m", "Longest wait between routing-table rounds: it doubles from table.period after each round with no table change, and any change brings it back.");
    public static final Option<Duration> REPAIR_PERIOD = Option.duration("p2psip.bamboo.repair.period", Duration.ofMinutes(10),
            "1h", "Period of the full repair, which sends every key to all its holders; a leaf-set change sends keys only to new holders.");
    public static final Option<Duration> MIN_TIMEOUT = Option.duration("p2psip.bamboo.timeout.min", Duration.ofMillis(200),
            "100ms", "Lower bound of a per-hop timeout, which is otherwise computed from observed round-trip times.");
    public static final Option<Duration> MAX_TIMEOUT = Option.duration("p2psip.bamboo.timeout.max", Duration.ofSeconds(2),
            "5s", "Upper bound of a per-hop timeout (a node never measured gets one from all nodes' round trips), and how long probes and a read's root are waited for, and a replica copy before it gets a stand-in.");
    public static final Option<Duration> DEADLINE = Option.duration("p2psip.bamboo.deadline", Duration.ofSeconds(5),
            "3s", "Deadline of one DHT operation, from the caller's request to the root's answer.");
    public static final Option<Integer> STORAGE_QUEUE = Option.integer("p2psip.bamboo.storage.queue", 10_000, "50000",
            "Storage operations waiting for the storage thread; beyond this a request is refused as OVERLOADED.");
    public static final Option<Integer> STORAGE_BATCH = Option.integer("p2psip.bamboo.storage.batch", 512, "128",
            "Most storage operations committed together by one fsync (group commit).");
    public static final Option<Boolean> STORAGE_FSYNC = Option.bool("p2psip.bamboo.storage.fsync", true, "false",
            "Whether a write is acknowledged only after an fsync; false trusts the OS page cache (a JVM crash still loses nothing).");
    public static final Option<Long> JE_CACHE_BYTES = Option.longInteger("p2psip.bamboo.je.cache.bytes", 64L << 20, "268435456",
            "Berkeley DB JE cache, shared by every environment of the JVM.");
    public static final Option<Long> JE_MAX_DISK_BYTES = Option.longInteger("p2psip.bamboo.je.max.disk.bytes", 0, "10737418240",
            "Disk the JE environment may use (JE's je.maxDisk); past it writes fail as STORAGE. 0: no limit but the free space.");
    public static final Option<Duration> SWEEP_PERIOD = Option.duration("p2psip.bamboo.sweep.period", Duration.ofSeconds(30),
            "1m", "Period of the background sweep that deletes values past their time to live.");

    public static final List<Option<?>> ALL = List.of(DIGIT_BITS, LEAF_SET_SIDE, REPLICAS, LEAF_SET_PERIOD,
            LEAF_SET_IDLE, KEEPALIVE, TABLE_PERIOD, TABLE_IDLE, REPAIR_PERIOD, MIN_TIMEOUT, MAX_TIMEOUT, DEADLINE, STORAGE_QUEUE, STORAGE_BATCH,
            STORAGE_FSYNC, JE_CACHE_BYTES, JE_MAX_DISK_BYTES, SWEEP_PERIOD);

    private BambooOptions() {
    }
}
