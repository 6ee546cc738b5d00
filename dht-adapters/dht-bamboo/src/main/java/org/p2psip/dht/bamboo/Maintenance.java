package org.p2psip.dht.bamboo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import org.p2psip.config.Config;
import org.p2psip.dht.Counters;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.routing.LeafSet;
import org.p2psip.dht.bamboo.routing.NodeHandle;
import org.p2psip.dht.bamboo.routing.RoutingTable;
import org.p2psip.dht.bamboo.storage.JeStorage;
import org.p2psip.dht.bamboo.storage.KeyValues;
import org.p2psip.dht.bamboo.wire.Message.Handles;
import org.p2psip.dht.bamboo.wire.Message.LeafSetExchange;
import org.p2psip.dht.bamboo.wire.Message.Store;
import org.p2psip.dht.bamboo.wire.Message.TableRequest;
import org.p2psip.dht.bamboo.routing.Pastry;

/**
 * Bamboo's periodic recovery: on timers, never in reaction to each failure, so that churn does
 * not turn into message storms. Each leaf-set period the node pings the members it has not heard
 * from for a keepalive (which is how a dead member is found) and, when its {@link Rounds} say so,
 * exchanges leaf sets with one member chosen at random; one routing-table row is refreshed each
 * table round, from a neighbour of that row (local tuning) and by a lookup for an empty slot
 * (global tuning). Both exchanges slow down, doubling their wait up to an idle period, while
 * their tables do not change, and return to the base period at any change. After a leaf-set
 * change (coalesced over one leaf-set period) each key goes to the nodes that newly should hold
 * it, and on its own, longer period every key goes to all its holders; expired values are swept.
 * Runs on the node's loop.
 */
final class Maintenance {

    private static final int COPIES_PER_MESSAGE = 256;
    private static final int PUSH_ATTEMPTS = 5;
    /** Records a merge of copies made anew here, and sent on to their other holders. */
    static final String COPIES_MERGED = "bamboo.copies.merged";

    private final BambooNode node;
    private final JeStorage storage;
    private final Duration leafPeriod;
    private final Duration tablePeriod;
    private final Duration keepalive;
    private final Rounds leafRounds;
    private final Rounds tableRounds;
    private final Duration repairPeriod;
    private final Duration sweepPeriod;
    private final int replicas;
    private final List<ScheduledFuture<?>> timers = new ArrayList<>();
    private final Counters counters = new Counters();
    private final int side;
    private boolean repairPending;
    private LeafSet lastRepaired;

    Maintenance(BambooNode node, JeStorage storage, Config config) {
        this.node = node;
        this.storage = storage;
        this.leafPeriod = config.get(BambooOptions.LEAF_SET_PERIOD);
        this.tablePeriod = config.get(BambooOptions.TABLE_PERIOD);
        this.repairPeriod = config.get(BambooOptions.REPAIR_PERIOD);
        this.sweepPeriod = config.get(BambooOptions.SWEEP_PERIOD);
        this.replicas = config.get(BambooOptions.REPLICAS);
        this.side = config.get(BambooOptions.LEAF_SET_SIDE);
        this.lastRepaired = new LeafSet(node.self(), side);
        this.keepalive = config.get(BambooOptions.KEEPALIVE);
        this.leafRounds = new Rounds(leafPeriod, config.get(BambooOptions.LEAF_SET_IDLE), node.nanoTime());
        this.tableRounds = new Rounds(tablePeriod, config.get(BambooOptions.TABLE_IDLE), node.nanoTime());
    }

    void start() {
        every(leafPeriod, this::leafRound);
        every(tablePeriod, this::tableRound);
        every(repairPeriod, this::fullRepair);
        every(sweepPeriod, storage::sweep);
    }

    void stop() {
        timers.forEach(t -> t.cancel(false));
    }

    /**
     * Every leaf-set period: members not heard from for a keepalive are pinged, and when the pace
     * says so the leaf set is exchanged with one member chosen at random (Bamboo's push-pull). A
     * node that has no member left tries to join again instead ({@link Rejoin}).
     */
    private CompletionStage<Void> leafRound() {
        node.liveness().pruneDead();
        node.liveness().keepAlive(keepalive);
        List<NodeHandle> members = node.leafSet().members();
        if (members.isEmpty()) {
            node.rejoin().round();
            return CompletableFuture.completedFuture(null);
        }
        if (!leafRounds.due(node.nanoTime())) {
            return CompletableFuture.completedFuture(null);
        }
        return exchangeWith(members.get(node.random().nextInt(members.size())));
    }

    /** Push-pull of leaf sets with every member: what a node does once it has joined, to be known by its new neighbours. */
    CompletionStage<Void> exchangeLeafSets() {
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (NodeHandle member : node.leafSet().members()) {
            sent.add(exchangeWith(member).toCompletableFuture());
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    }

    /** Sends this node's leaf set to {@code member} and learns the members it answers with, those this node lacks. */
    private CompletionStage<Void> exchangeWith(NodeHandle member) {
        // waits the longest hop timeout: a busy neighbour is not a dead one
        return node.send(member, new LeafSetExchange(node.self(), node.leafSet().members()), node.maxTimeout())
                .thenAccept(reply -> ((Handles) reply).handles().forEach(node.liveness()::learn))
                .handle((v, e) -> null);
    }

    /**
     * The answer to a {@link LeafSetExchange}: the nodes this one knows (its members and itself)
     * that the asker's leaf set lacks and would take. The asker sent its whole set, so whatever
     * else this node could say it knows already; in a settled overlay the answer is empty.
     */
    List<NodeHandle> missingFrom(LeafSetExchange asked) {
        var theirs = new LeafSet(asked.from(), side);
        asked.members().forEach(theirs::add);
        List<NodeHandle> missing = new ArrayList<>();
        for (NodeHandle known : node.leafSet().members()) {
            if (theirs.accepts(known)) {
                missing.add(known);
            }
        }
        if (theirs.accepts(node.self())) {
            missing.add(node.self());
        }
        return missing;
    }

    /** The routing table gained or lost an entry: its rounds return to the base period. */
    void tableChanged() {
        tableRounds.changed(node.nanoTime());
    }

    /** A leaf-set change moves responsibility for keys: check replicas once the change has settled. */
    void leafSetChanged() {
        leafRounds.changed(node.nanoTime());
        if (repairPending || node.isClosed()) {
            return;
        }
        repairPending = node.schedule(() -> {
            repairPending = false;
            repairChanges();
        }, leafPeriod);
    }

    /** What a {@link TableRequest} gets: one row, or ({@code row < 0}) every entry and the leaf set. */
    List<NodeHandle> tableState(int row) {
        RoutingTable table = node.table();
        if (row >= 0) {
            return row < table.rows() ? table.row(row) : List.of();
        }
        var all = new ArrayList<>(table.all());
        all.addAll(node.leafSet().members());
        all.add(node.self());
        return all;
    }

    Map<String, Long> metrics() {
        return counters.snapshot("bamboo.repairs", "bamboo.repair.copies", COPIES_MERGED);
    }

    /**
     * After a leaf-set change: sends each key this node holds to the nodes that should hold it now
     * but did not under the leaf set of the previous repair (a node that took a dead one's place,
     * or one that joined). Nodes that held the key before are not sent it again.
     */
    private CompletionStage<Void> repairChanges() {
        LeafSet before = lastRepaired;
        LeafSet now = copyOf(node.leafSet());
        lastRepaired = now;
        return repair(holder -> key -> !before.nearest(key, replicas + 1).contains(holder));
    }

    /**
     * Sends every key this node holds to every node that should hold it now: the safety net for
     * copies lost on the way (a replica that failed during a write). They keep what is newer.
     */
    private CompletionStage<Void> fullRepair() {
        lastRepaired = copyOf(node.leafSet());
        return repair(holder -> key -> true);
    }

    /** Pushes each held key to each of its current holders (root and replicas) that {@code wanted} selects. */
    private CompletionStage<Void> repair(Function<NodeHandle, Predicate<Id>> wanted) {
        counters.increment("bamboo.repairs");
        return storage.snapshot().thenAccept(all -> pushToHolders(all, wanted));
    }

    /**
     * Sends the records a merge of copies made anew (two roots' writes joined: neither what this
     * node held nor the copy) to the keys' other holders, root and replicas as this node's leaf
     * set sees them: the holder that sent one side's copy lacks the other side's writes, and the
     * root serves the reads. A holder that has them all already keeps what it holds, so the
     * sending stops there.
     */
    void spreadMerged(List<KeyValues> merged) {
        if (!merged.isEmpty()) {
            counters.add(COPIES_MERGED, merged.size());
            pushToHolders(merged, holder -> key -> true);
        }
    }

    private void pushToHolders(List<KeyValues> keys, Function<NodeHandle, Predicate<Id>> wanted) {
        Map<NodeHandle, List<KeyValues>> outgoing = new LinkedHashMap<>();
        for (KeyValues kv : keys) {
            for (NodeHandle holder : node.leafSet().nearest(kv.key(), replicas + 1)) {
                if (!holder.equals(node.self()) && wanted.apply(holder).test(kv.key())) {
                    outgoing.computeIfAbsent(holder, h -> new ArrayList<>()).add(kv);
                }
            }
        }
        outgoing.forEach(this::push);
    }

    /**
     * Before leaving: sends each key this node holds to the nodes that will hold it without this
     * node (its leaf set's nearest, this node left out). Completes when every copy was answered.
     */
    CompletionStage<Void> handOver() {
        return storage.snapshot().thenCompose(all -> {
            Map<NodeHandle, List<KeyValues>> outgoing = new LinkedHashMap<>();
            for (KeyValues kv : all) {
                node.leafSet().nearest(kv.key(), replicas + 2).stream().filter(h -> !h.equals(node.self()))
                        .limit(replicas + 1)
                        .forEach(holder -> outgoing.computeIfAbsent(holder, h -> new ArrayList<>()).add(kv));
            }
            List<CompletableFuture<?>> sent = new ArrayList<>();
            outgoing.forEach((target, copies) -> sent.addAll(push(target, copies)));
            return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
        });
    }

    private LeafSet copyOf(LeafSet leafSet) {
        var copy = new LeafSet(node.self(), side);
        leafSet.members().forEach(copy::add);
        return copy;
    }

    private List<CompletableFuture<?>> push(NodeHandle target, List<KeyValues> copies) {
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (int from = 0; from < copies.size(); from += COPIES_PER_MESSAGE) {
            var chunk = List.copyOf(copies.subList(from, Math.min(copies.size(), from + COPIES_PER_MESSAGE)));
            sent.add(send(target, chunk, 0));
        }
        return sent;
    }

    /**
     * Sends copies to a holder; if they do not arrive, tries again a leaf-set period later, as
     * long as the target still holds those keys and a few attempts remain.
     */
    private CompletableFuture<?> send(NodeHandle target, List<KeyValues> chunk, int attempt) {
        counters.add("bamboo.repair.copies", chunk.size());
        return node.send(target, new Store(node.self(), chunk), node.maxTimeout().multipliedBy(2)).handle((m, e) -> {
            if (e != null && attempt < PUSH_ATTEMPTS && !node.isClosed()) {
                node.schedule(() -> {
                    var still = chunk.stream().filter(kv -> node.leafSet().nearest(kv.key(), replicas + 1).contains(target)).toList();
                    if (!still.isEmpty()) {
                        send(target, still, attempt + 1);
                    }
                }, leafPeriod);
            }
            return null;
        }).toCompletableFuture();
    }

    private CompletionStage<Void> tableRound() {
        return tableRounds.due(node.nanoTime()) ? tuneTable() : CompletableFuture.completedFuture(null);
    }

    /**
     * Local tuning: asks a random entry of a random non-empty row for that row. Global tuning:
     * looks up an id that would fill a random empty slot of the rows in use.
     */
    private CompletionStage<Void> tuneTable() {
        RoutingTable table = node.table();
        List<Integer> used = new ArrayList<>();
        for (int r = 0; r < table.rows() && !table.row(r).isEmpty(); r++) {
            used.add(r);
        }
        if (used.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        int row = used.get(node.random().nextInt(used.size()));
        List<NodeHandle> entries = table.row(row);
        NodeHandle peer = entries.get(node.random().nextInt(entries.size()));
        node.send(peer, new TableRequest(node.self(), row), node.timeoutFor(peer))
                .thenAccept(reply -> ((Handles) reply).handles().forEach(node.liveness()::learn));
        int col = node.random().nextInt(1 << table.bits());
        if (table.get(row, col) == null && col != Pastry.digit(node.self().id(), row, table.bits())) {
            Id target = Pastry.withDigit(node.self().id(), row, col, table.bits(), node.random());
            return node.locate(target).thenAccept(found -> node.liveness().learn(found.root())).handle((v, e) -> null);
        }
        return CompletableFuture.completedFuture(null);
    }

    private void every(Duration period, java.util.function.Supplier<? extends CompletionStage<?>> task) {
        long ms = Math.max(1, period.toMillis());
        timers.add(node.loop().scheduleWithFixedDelay(() -> {
            if (!node.isClosed()) {
                try {
                    task.get();
                } catch (RuntimeException e) {
                    // a failed round is retried next period; the node keeps running
                }
            }
        }, ms, ms, TimeUnit.MILLISECONDS));
    }
}
