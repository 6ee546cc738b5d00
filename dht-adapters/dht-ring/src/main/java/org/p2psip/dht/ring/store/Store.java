package org.p2psip.dht.ring.store;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Counters;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeThread;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.RingSettings;
import org.p2psip.dht.ring.FingerTable;

/**
 * The records one node holds, as owner or replica ({@link PackedRecords}: each as bytes, decoded
 * when read), and the owner's side of get, put, update and remove.
 * The owner serialises the writes of its keys simply by running on one loop: a put's version
 * check and store happen in one step. It then copies the record to its first r successors
 * ({@link Replicas}) and reports whether they took it. Copies received are merged ({@link RecordMerge});
 * whole ranges move by hand-over ({@link PacedTransfer}); expired records are swept. Not thread-safe:
 * used only on the node's loop, except {@link #size}.
 */
public final class Store {

    /** Slots the sweep walks in one loop task. */
    private static final int SWEEP_SLICE = 1 << 16;

    private final FingerTable table;
    private final RingSettings settings;
    private final Clock clock;
    private final Counters counters;
    private final String prefix;
    private final OwnerRules ownerRules;
    private final PackedRecords records = new PackedRecords();
    private final PacedTransfer copies;
    private final Replicas replicas;
    private final ReplicaUpkeep upkeep;
    private volatile int size;
    private volatile int markers;
    /** The next slot the sweep walks, or -1 when no sweep is walking. */
    private int sweeping = -1;
    private final NodeThread loop;
    /** Run before this node decides it owns a key: the membership's check that its loop did not stand still. */
    private Runnable beforeOwning = () -> { };

    /**
     * @param prefix  the backend's name, before every counter this store keeps ("chord", "bryan")
     * @param ownerRules the rules this node applies to changes it owns ({@link #update})
     */
    public Store(FingerTable table, RingSettings settings, RecordLink link, NodeThread loop, Clock clock, Counters counters,
                 String prefix, OwnerRules ownerRules) {
        this.table = table;
        this.ownerRules = ownerRules;
        this.loop = loop;
        this.settings = settings;
        this.clock = clock;
        this.counters = counters;
        this.prefix = prefix;
        this.copies = new PacedTransfer(link, counters, prefix);
        this.replicas = new Replicas(copies, loop, settings, counters, prefix);
        this.upkeep = new ReplicaUpkeep(this, copies, loop, settings, counters, prefix);
    }

    /**
     * How many live records this node holds, removal markers not counted: a removed AOR is gone
     * for its operator, though its marker stays for the tombstone retention. Readable from any
     * thread (refreshed on every change).
     */
    public int size() {
        return size;
    }

    /** How many removal markers this node holds (each kept for the tombstone retention); from any thread. */
    public int markers() {
        return markers;
    }

    /** The record of {@code key} this node holds, or null. */
    public Record record(Id key) {
        byte[] held = records.get(key);
        return held == null ? null : PackedRecord.unpack(held);
    }

    /** Whether this node owns {@code key} now (and so may answer for it). */
    public boolean owns(Id key) {
        beforeOwning.run();
        return table.owns(key);
    }

    /**
     * Runs {@code check} before every answer as owner: the membership's (Membership#ran), which
     * gives up this node's range when its loop stood still, before a request that waited
     * meanwhile is answered from the records kept.
     */
    public void beforeOwning(Runnable check) {
        this.beforeOwning = check;
    }

    /** The set a get of {@code aor} (whose key is {@code key}) reads here: absent when none is live. */
    public BindingSet read(Id key, String aor) {
        counters.increment(prefix + ".owner.gets");
        return visible(record(key), aor);
    }

    /**
     * Compare-and-set of a whole set: stored when its version is the stored one's.
     *
     * @param asker the node whose routed put this is; null for this node's own
     */
    public CompletableFuture<Write> put(BindingSet next, NodeRef asker) {
        counters.increment(prefix + ".owner.puts");
        Id key = Id.hash(next.aor());
        if (!owns(key)) {
            return CompletableFuture.completedFuture(Write.notOwner());
        }
        byte[] packed = records.get(key);
        long now = clock.millis();
        long version = packed != null && PackedRecord.visibleAt(packed, now) ? PackedRecord.version(packed) : 0;
        Record held = packed == null ? null : PackedRecord.unpack(packed);
        if (version != next.version()) {
            return CompletableFuture.completedFuture(Write.conflict(visible(held, next.aor())));
        }
        return write(ownerWrite(held, next.stored(), next.aor(), false), asker);
    }

    /**
     * Applies a change to {@code aor}'s set with this node's {@link OwnerRules}, as one step on the
     * loop: what a put is, without the writer having read first. UNCHANGED, with the set as it
     * stands, when the rules write nothing; MALFORMED when the change cannot be read. A stored or
     * unchanged write carries the rules' answer for the change's maker.
     *
     * @param asker the node whose routed change this is; null for this node's own
     */
    public CompletableFuture<Write> update(String aor, byte[] change, NodeRef asker) {
        counters.increment(prefix + ".owner.updates");
        Id key = Id.hash(aor);
        if (!owns(key)) {
            return CompletableFuture.completedFuture(Write.notOwner());
        }
        Record held = record(key);
        BindingSet current = visible(held, aor);
        Updated decided;
        try {
            decided = ownerRules.next(current, change, clock.millis());
        } catch (MalformedBindingException e) {
            counters.increment(prefix + ".updates.malformed");
            return CompletableFuture.completedFuture(Write.malformed());
        }
        if (!decided.written()) {
            return CompletableFuture.completedFuture(Write.unchanged(current, decided.answer()));
        }
        byte[] answer = decided.answer();
        return write(ownerWrite(held, decided.record().stored(), aor, decided.clears()), asker).thenApply(w -> w.answering(answer));
    }

    /** Removes {@code aor}'s set when its version is {@code version}: a removal marker takes its place. */
    public CompletableFuture<Write> remove(Id key, String aor, long version, NodeRef asker) {
        counters.increment(prefix + ".owner.removes");
        if (!owns(key)) {
            return CompletableFuture.completedFuture(Write.notOwner());
        }
        Record held = record(key);
        BindingSet current = visible(held, aor);
        if (!current.exists() || current.version() != version) {
            return CompletableFuture.completedFuture(Write.conflict(current));
        }
        return write(ownerWrite(held, null, current.aor(), true), asker);
    }

    /**
     * The record this owner stores for {@code next} (null: a removal) over what it holds, its
     * contact writes stamped now; {@code clears} when the write removes every binding of the AOR.
     */
    private Record ownerWrite(Record held, BindingSet next, String aor, boolean clears) {
        return RecordMerge.written(held, next, clears, aor, held == null ? 1 : held.stamp() + 1,
                clock.millis(), settings.tombstoneRetention().toMillis());
    }

    /** What a reader sees of a held record: absent when none, removed or past retention, else the live bindings. */
    private BindingSet visible(Record held, String aor) {
        return held == null ? BindingSet.absent(aor) : held.visibleAt(clock.millis());
    }

    /**
     * Stores a write and copies it to the replicas. When the asker of a routed write is one of
     * them and its backend can carry a copy in the answer, that copy travels there instead of in
     * a copy message of its own ({@link Write#carried}). A write some replica did not take is
     * UNREPLICATED: stored here (it may be read) but not to be acknowledged.
     */
    private CompletableFuture<Write> write(Record record, NodeRef asker) {
        records.put(PackedRecord.pack(record));
        counted();
        List<NodeRef> targets = replicaTargets();
        boolean carried = asker != null && !asker.equals(table.self()) && targets.contains(asker);
        if (carried) {
            counters.increment(prefix + ".copies.carried");
            targets = targets.stream().filter(t -> !t.equals(asker)).toList();
        }
        return replicas.copy(targets, record).thenApply(taken -> {
            if (!taken) {
                counters.increment(prefix + ".writes.unreplicated");
            }
            return new Write(taken ? Write.Outcome.STORED : Write.Outcome.UNREPLICATED, null, record, carried);
        });
    }

    /**
     * Merges each received copy into what this node holds ({@link RecordMerge}). A record this node
     * owns that the merge made anew (neither what it held nor the copy: the two sides of a healed
     * split) is copied to its replicas, which hold one side or the other.
     */
    public void merge(List<Record> received) {
        long now = clock.millis();
        for (Record copy : received) {
            byte[] held = records.get(copy.key());
            if (held == null) {
                records.put(PackedRecord.pack(copy));
                continue;
            }
            Record mine = PackedRecord.unpack(held);
            Record merged = RecordMerge.merge(mine, copy, now);
            if (merged == mine) {
                continue;
            }
            records.put(PackedRecord.pack(merged));
            if (merged != copy && table.owns(merged.key())) {
                counters.increment(prefix + ".copies.merged");
                replicas.copy(replicaTargets(), merged);
            }
        }
        counted();
    }

    /**
     * The first r successors on other physical nodes: where this node's records are copied. A
     * successor at this node's own address, or at the address of a nearer target, is skipped (a
     * node with several places would otherwise copy to itself, and lose every copy with one
     * crash); with one place per node these are the first r successors.
     */
    public List<NodeRef> replicaTargets() {
        var targets = new java.util.ArrayList<NodeRef>(settings.replicas());
        var addresses = new java.util.HashSet<String>();
        addresses.add(table.self().address());
        for (NodeRef n : table.successors()) {
            if (targets.size() == settings.replicas()) {
                break;
            }
            if (addresses.add(n.address())) {
                targets.add(n);
            }
        }
        return targets;
    }

    /** Copies what this node owns to its replicas when they need it (see {@link ReplicaUpkeep}). */
    public void maintainReplicas() {
        upkeep.run(replicas.failedSinceAsked());
    }

    /** The records this node owns now: what its replicas must hold. */
    List<Record> owned() {
        return records.matching(table::owns);
    }

    NodeRef predecessor() {
        return table.predecessor();
    }

    /** Hands the records whose keys lie in (from, to] to {@code to}, which now owns them; true when all arrived. */
    public CompletableFuture<Boolean> handOver(Id from, NodeRef to) {
        return copies.to(List.of(to), records.matching(key -> key.inHalfOpen(from, to.id())));
    }

    /** Hands every record to {@code to}: a leaving node's last act, a rejoining node's first. */
    public CompletableFuture<Boolean> handOverAll(NodeRef to) {
        return copies.to(List.of(to), records.matching(key -> true));
    }

    /**
     * Forgets the records whose retention has passed, a slice of the table per loop task: a node
     * holding millions of records would otherwise stop its loop for the whole walk (about 150 ms
     * for seven million). A sweep asked for while one is walking is not started twice.
     */
    public void sweep() {
        if (sweeping < 0) {
            sweeping = 0;
            sweepSlice();
        }
    }

    private void sweepSlice() {
        long now = clock.millis();
        int swept = records.removeIf(sweeping, sweeping + SWEEP_SLICE, r -> PackedRecord.forgettableAt(r, now));
        counted();
        counters.add(prefix + ".swept", swept);
        sweeping += SWEEP_SLICE;
        if (sweeping < records.slots()) {
            loop.execute(this::sweepSlice);
        } else {
            sweeping = -1;
        }
    }

    private void counted() {
        markers = records.markers();
        size = records.size() - markers;
    }
}
