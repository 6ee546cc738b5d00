package org.p2psip.dht.ring.store;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Counters;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.Loop;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.RingSettings;
import org.p2psip.dht.ring.RoutingTable;

/**
 * The records one node holds, as owner or replica, and the owner's side of get, put and remove.
 * The owner serialises the writes of its keys simply by running on one loop: a put's version
 * check and store happen in one step. It then copies the record to its first r successors
 * ({@link Replicas}) and reports whether they took it. Copies received are merged by stamp;
 * whole ranges move by hand-over ({@link Copies}); expired records are swept. Not thread-safe:
 * used only on the node's loop, except {@link #size}.
 */
public final class Store {

    private final RoutingTable table;
    private final RingSettings settings;
    private final Clock clock;
    private final Counters counters;
    private final String prefix;
    private final Map<Id, Record> records = new HashMap<>();
    private final Copies copies;
    private final Replicas replicas;
    private final ReplicaUpkeep upkeep;
    private volatile int size;

    /** @param prefix the backend's name, before every counter this store keeps ("chord", "bryan") */
    public Store(RoutingTable table, RingSettings settings, RecordLink link, Loop loop, Clock clock, Counters counters,
                 String prefix) {
        this.table = table;
        this.settings = settings;
        this.clock = clock;
        this.counters = counters;
        this.prefix = prefix;
        this.copies = new Copies(link, counters, prefix);
        this.replicas = new Replicas(copies, loop, settings, counters, prefix);
        this.upkeep = new ReplicaUpkeep(this, copies, loop, settings, counters, prefix);
    }

    /** How many records this node holds; readable from any thread (refreshed on every change). */
    public int size() {
        return size;
    }

    /** The record of {@code key} this node holds, or null. */
    public Record record(Id key) {
        return records.get(key);
    }

    /** Whether this node owns {@code key} now (and so may answer for it). */
    public boolean owns(Id key) {
        return table.owns(key);
    }

    /** The set a get of {@code aor} (whose key is {@code key}) reads here: absent when none is live. */
    public BindingSet read(Id key, String aor) {
        counters.increment(prefix + ".owner.gets");
        Record held = records.get(key);
        return held == null ? BindingSet.absent(aor) : held.visibleAt(clock.millis());
    }

    /**
     * Compare-and-set of a whole set: stored when its version is the stored one's.
     *
     * @param asker the node whose routed put this is; null for this node's own
     */
    public CompletableFuture<Write> put(BindingSet next, NodeRef asker) {
        counters.increment(prefix + ".owner.puts");
        Id key = Id.hash(next.aor());
        if (!table.owns(key)) {
            return CompletableFuture.completedFuture(Write.notOwner());
        }
        Record held = records.get(key);
        BindingSet current = visible(held, next.aor());
        if (current.version() != next.version()) {
            return CompletableFuture.completedFuture(Write.conflict(current));
        }
        return write(Record.of(next.stored(), stampAfter(held)), asker);
    }

    /** Removes {@code aor}'s set when its version is {@code version}: a removal marker takes its place. */
    public CompletableFuture<Write> remove(Id key, String aor, long version, NodeRef asker) {
        counters.increment(prefix + ".owner.removes");
        if (!table.owns(key)) {
            return CompletableFuture.completedFuture(Write.notOwner());
        }
        Record held = records.get(key);
        BindingSet current = visible(held, aor);
        if (!current.exists() || current.version() != version) {
            return CompletableFuture.completedFuture(Write.conflict(current));
        }
        long until = clock.millis() + settings.tombstoneRetention().toMillis();
        return write(Record.removed(held.aor(), stampAfter(held), until), asker);
    }

    private BindingSet visible(Record held, String aor) {
        return held == null ? BindingSet.absent(aor) : held.visibleAt(clock.millis());
    }

    private static long stampAfter(Record held) {
        return held == null ? 1 : held.stamp() + 1;
    }

    /**
     * Stores a write and copies it to the replicas. When the asker of a routed write is one of
     * them and its backend can carry a copy in the answer, that copy travels there instead of in
     * a copy message of its own ({@link Write#carried}). A write some replica did not take is
     * UNREPLICATED: stored here (it may be read) but not to be acknowledged.
     */
    private CompletableFuture<Write> write(Record record, NodeRef asker) {
        records.put(record.key(), record);
        size = records.size();
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

    /** Keeps each received copy that is newer than what this node holds. */
    public void merge(List<Record> received) {
        for (Record copy : received) {
            records.merge(copy.key(), copy, (held, newer) -> newer.stamp() > held.stamp() ? newer : held);
        }
        size = records.size();
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
        return held(r -> table.owns(r.key()));
    }

    NodeRef predecessor() {
        return table.predecessor();
    }

    /** Hands the records whose keys lie in (from, to] to {@code to}, which now owns them; true when all arrived. */
    public CompletableFuture<Boolean> handOver(Id from, NodeRef to) {
        return copies.to(List.of(to), held(r -> r.key().inHalfOpen(from, to.id())));
    }

    /** Hands every record to {@code to}: a leaving node's last act, a rejoining node's first. */
    public CompletableFuture<Boolean> handOverAll(NodeRef to) {
        return copies.to(List.of(to), held(r -> true));
    }

    /** Forgets the records whose retention has passed. */
    public void sweep() {
        long now = clock.millis();
        int before = records.size();
        records.values().removeIf(r -> r.forgettableAt(now));
        size = records.size();
        counters.add(prefix + ".swept", before - records.size());
    }

    private List<Record> held(Predicate<Record> which) {
        return records.values().stream().filter(which).toList();
    }
}
