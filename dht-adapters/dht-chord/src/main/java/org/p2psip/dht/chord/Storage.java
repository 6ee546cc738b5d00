package org.p2psip.dht.chord;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.overlay.Counters;

/**
 * The records one node holds, as owner or replica, and the owner's side of get, put and remove.
 * The owner serialises the writes of its keys simply by running on one event loop: a put's
 * version check and store happen in one step. It then copies the record to its first r
 * successors ({@link Replication}) and answers only when they have answered (or failed: a failed
 * copy is counted and made good by the next replica push). Not thread-safe: used only on the node's event loop.
 */
final class Storage {

    /** Records per STORE message, so that a hand-over stays far below the frame limit. */
    static final int BATCH = 256;
    private static final int BATCH_BYTES = 512 * 1024;

    private final ChordNode node;
    private final Clock clock;
    private final Counters counters;
    private final Map<String, Record> records = new HashMap<>();
    private final Replication replication;
    private List<NodeRef> pushedTo;
    private NodeRef pushedWithPredecessor;
    private boolean pushing;
    private boolean missedCopies;
    private volatile int size;
    private long pushedAtNanos;

    Storage(ChordNode node, Clock clock, Counters counters) {
        this.node = node;
        this.clock = clock;
        this.counters = counters;
        this.replication = new Replication(node, counters);
    }

    /** How many records this node holds; readable from any thread (refreshed on every change). */
    int size() {
        return size;
    }

    /** The record of {@code aor} this node holds, or null (for tests and tools). */
    Record record(String aor) {
        return records.get(aor);
    }

    /** Serves a GET, PUT or REMOVE payload, from a peer or from this node itself. */
    CompletableFuture<byte[]> handle(int type, byte[] payload) {
        var in = new Wire.Reader(payload);
        return switch (type) {
            case MessageType.GET -> get(in.string());
            case MessageType.PUT -> put(BindingCodec.decode(in.blob()));
            case MessageType.REMOVE -> remove(in.string(), in.u64());
            default -> throw new IllegalArgumentException("not a storage message: " + type);
        };
    }

    CompletableFuture<byte[]> get(String aor) {
        counters.increment("chord.owner.gets");
        if (!node.table().owns(Id.hash(aor))) {
            return status(MessageType.NOT_OWNER, new byte[0]);
        }
        Record held = records.get(aor);
        return status(MessageType.OK, body(visible(held, aor)));
    }

    CompletableFuture<byte[]> put(BindingSet next) {
        counters.increment("chord.owner.puts");
        if (!node.table().owns(Id.hash(next.aor()))) {
            return status(MessageType.NOT_OWNER, new byte[0]);
        }
        Record held = records.get(next.aor());
        BindingSet current = visible(held, next.aor());
        if (current.version() != next.version()) {
            // the record as a get would read it, so that the writer can apply its change again at once
            return status(MessageType.CONFLICT, body(current));
        }
        return write(Record.of(next.stored(), stampAfter(held)));
    }

    CompletableFuture<byte[]> remove(String aor, long version) {
        counters.increment("chord.owner.removes");
        if (!node.table().owns(Id.hash(aor))) {
            return status(MessageType.NOT_OWNER, new byte[0]);
        }
        Record held = records.get(aor);
        BindingSet current = visible(held, aor);
        if (!current.exists() || current.version() != version) {
            return status(MessageType.CONFLICT, new byte[0]);
        }
        long until = clock.millis() + node.settings().tombstoneRetention().toMillis();
        return write(Record.removed(aor, stampAfter(held), until));
    }

    private BindingSet visible(Record held, String aor) {
        return held == null ? BindingSet.absent(aor) : held.visibleAt(clock.millis());
    }

    /** A record in an answer: its encoding, or nothing when the AOR has none. */
    private static byte[] body(BindingSet visible) {
        return visible.exists() ? BindingCodec.encode(visible) : new byte[0];
    }

    private static long stampAfter(Record held) {
        return held == null ? 1 : held.stamp() + 1;
    }

    private CompletableFuture<byte[]> write(Record record) {
        records.put(record.aor(), record);
        size = records.size();
        return replication.copy(node.replicaTargets(), record)
                .thenApply(copied -> new Wire.Writer().u8(MessageType.OK).blob(new byte[0]).bytes());
    }

    /** Keeps each received copy that is newer than what this node holds. */
    void merge(List<Record> copies) {
        for (Record copy : copies) {
            records.merge(copy.aor(), copy, (held, received) -> received.stamp() > held.stamp() ? received : held);
        }
        size = records.size();
    }

    /**
     * Copies the records this node owns to its replicas when the replicas or the owned range
     * changed since the last complete copy (a joined or failed successor, a new predecessor), and,
     * at most once per refresh interval, when a write's copy failed since: that repairs what a
     * failed copy left missing. Not periodically otherwise: a full copy costs the event loop time
     * in proportion to the records held (a stall of a loaded node every interval), and copies
     * that all arrived need no repair.
     */
    void maintainReplicas() {
        missedCopies |= replication.failedSinceAsked();
        List<NodeRef> targets = node.replicaTargets();
        NodeRef predecessor = node.table().predecessor();
        boolean unchanged = targets.equals(pushedTo) && Objects.equals(predecessor, pushedWithPredecessor);
        boolean fresh = System.nanoTime() - pushedAtNanos < node.settings().replicaRefresh().toNanos();
        if (pushing || (unchanged && (fresh || !missedCopies))) {
            return;
        }
        pushing = true;
        missedCopies = false;
        counters.increment("chord.replica.pushes");
        copyTo(targets, held(r -> node.table().owns(r.key()))).whenComplete((allCopied, ignored) -> {
            pushing = false;
            if (!Boolean.TRUE.equals(allCopied)) {
                missedCopies = true;
            } else {
                pushedAtNanos = System.nanoTime();
                pushedTo = targets;
                pushedWithPredecessor = predecessor;
            }
        });
    }

    /** Hands the records whose keys lie in (from, to] to {@code to}, which now owns them. */
    CompletableFuture<Boolean> handOver(Id from, NodeRef to) {
        return copyTo(List.of(to), held(r -> r.key().inHalfOpen(from, to.id())));
    }

    /** Hands every record to {@code to}: a leaving node's last act, a rejoining node's first. */
    CompletableFuture<Boolean> handOverAll(NodeRef to) {
        return copyTo(List.of(to), held(r -> true));
    }

    void sweep() {
        long now = clock.millis();
        int before = records.size();
        records.values().removeIf(r -> r.forgettableAt(now));
        size = records.size();
        counters.add("chord.swept", before - records.size());
    }

    private List<Record> held(Predicate<Record> which) {
        return records.values().stream().filter(which).toList();
    }

    /**
     * Sends the records to every target in batches, one batch in flight per target: the next
     * leaves once the last was answered, and none after one that failed. Completes true when all
     * arrived, never fails. A full copy (a replica push, a hand-over) can hold hundreds of
     * thousands of records; sent at once they filled the connection's outbound buffer, the users'
     * operations behind them were refused or timed out, and two loaded nodes dropped each other
     * again and again (bench run chordfix: 19 times in one run, two nodes holding 3,875/s).
     */
    private CompletableFuture<Boolean> copyTo(List<NodeRef> targets, List<Record> copies) {
        if (targets.isEmpty() || copies.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        var sends = targets.stream().map(target -> copyInTurn(target, copies, 0)).toList();
        return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
                .thenApply(done -> sends.stream().allMatch(CompletableFuture::join));
    }

    private CompletableFuture<Boolean> copyInTurn(NodeRef target, List<Record> copies, int from) {
        if (from >= copies.size()) {
            return CompletableFuture.completedFuture(true);
        }
        byte[] payload = batch(copies.subList(from, copies.size()));
        int next = from + (int) new Wire.Reader(payload).u64();
        return node.transport().request(target.address(), MessageType.STORE, payload, node.settings().requestTimeout())
                .toCompletableFuture()
                .handle((answer, failure) -> failure)
                .thenCompose(failure -> {
                    if (failure != null) {
                        counters.increment("chord.replica.failures");
                        return CompletableFuture.completedFuture(false);
                    }
                    return copyInTurn(target, copies, next);
                });
    }

    /** One STORE payload of the first records: at most {@link #BATCH} and about {@link #BATCH_BYTES} bytes. */
    static byte[] batch(List<Record> copies) {
        var body = new Wire.Writer();
        int count = 0;
        while (count < copies.size() && count < BATCH && body.size() < BATCH_BYTES) {
            copies.get(count++).write(body);
        }
        return new Wire.Writer().u64(count).raw(body.bytes()).bytes();
    }

    static List<Record> readCopies(byte[] payload) {
        var in = new Wire.Reader(payload);
        long count = in.u64();
        var copies = new ArrayList<Record>();
        for (long i = 0; i < count; i++) {
            copies.add(Record.read(in));
        }
        return copies;
    }

    private static CompletableFuture<byte[]> status(int status, byte[] body) {
        var out = new Wire.Writer().u8(status).blob(body);
        return CompletableFuture.completedFuture(out.bytes());
    }
}
