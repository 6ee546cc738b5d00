package org.p2psip.dht.ring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.RingMessages.Placement;
import org.p2psip.dht.ring.store.Store;

/**
 * How a node finds and keeps its place on the ring (Chord, Stoica et al. §4.4 and §5): join,
 * stabilise, notify, fix fingers and check the predecessor, with the successor list of §5.2, a
 * graceful leave, and what a deployment adds: a founder that looks for the ring before it starts
 * one, a node that rejoins after it found itself alone, and a fresh node that owns nothing until
 * its records were handed to it. The backend says each message in its own wire format
 * ({@link RingMessages}) and calls back here with what it received.
 *
 * <p>Not thread-safe: runs on the node's {@link NodeThread}. Only {@link #isClosing} is read elsewhere.
 */
public final class Membership {

    /** Stabilisations in a row that must find the ring agreed before a node calls itself settled. */
    public static final int SETTLED_ROUNDS = 3;

    private final FingerTable table;
    private final Store store;
    private final RingSettings settings;
    private final NodeThread loop;
    private final RingMessages messages;
    private final Counters counters;
    private final String prefix;
    private final CompletableFuture<Void> joined = new CompletableFuture<>();
    private final CompletableFuture<Void> placed = new CompletableFuture<>();
    private final List<CompletableFuture<Void>> settling = new ArrayList<>();
    private final List<ScheduledFuture<?>> tasks = new ArrayList<>();
    private final Map<NodeRef, Integer> timeouts = new HashMap<>();
    private final Set<NodeRef> suspects = new HashSet<>();
    private volatile boolean closing;
    private boolean stabilizing;
    private boolean fixing;
    private boolean checking;
    private int nextFinger;
    /** Checks of the successor so far: which finger the next {@link #checkSuccessorFrom} starts from. */
    private int successorChecks;
    /** {@link #checkSuccessorFrom}'s longest wait, in idle finger intervals. */
    private static final int SUCCESSOR_CHECK_IDLES = 16;
    private int agreedRounds;
    private long successorHeardNanos;
    private long predecessorHeardNanos;
    private final Pace stabilizePace;
    private final Pace successorCheckPace;
    private final Pace fingerPace;
    /** The last successor this node gave up on when it found itself alone; null while it has peers. */
    private NodeRef lost;
    private boolean rejoining;
    /** The node whose answer placed this one, and when: its hand-over ends this node's wait for records. */
    private NodeRef placedBy;
    private long placedNanos;
    /** The address of a hand-over's end that arrived before the join's answer it follows (they travel apart). */
    private String handedEarly;
    /** The newcomer this node is handing records to; null when none. */
    private NodeRef handingTo;
    /** Told of each peer this node dropped as failed or that said it leaves. */
    private Consumer<NodeRef> dropped = peer -> { };
    /** When this node's loop last ran its upkeep or an answer as owner ({@link #ran}); 0 before {@link #start}. */
    private long ranNanos;
    /** Whether this node waits for its records after a stall rather than after its join: it holds some. */
    private boolean stalled;

    /** @param prefix the backend's name, before every counter this keeps ("chord", "bryan") */
    public Membership(FingerTable table, Store store, RingSettings settings, NodeThread loop, RingMessages messages,
                      Counters counters, String prefix) {
        this.table = table;
        this.store = store;
        this.settings = settings;
        this.loop = loop;
        this.successorHeardNanos = loop.nanoTime();
        this.stabilizePace = new Pace(settings.stabilize(), settings.stabilizeIdle());
        this.fingerPace = new Pace(settings.fixFingers(), settings.fixFingersIdle());
        this.successorCheckPace = new Pace(settings.fixFingersIdle(),
                settings.fixFingersIdle().multipliedBy(SUCCESSOR_CHECK_IDLES));
        this.messages = messages;
        this.counters = counters;
        this.prefix = prefix;
        store.beforeOwning(this::ran);
    }

    public NodeRef self() {
        return table.self();
    }

    /**
     * Tells {@code listener} of each peer this node drops as failed, or that leaves: a backend's
     * view of the whole ring (see {@link Members}) stops routing to it at once. On the loop.
     */
    public void onDropped(Consumer<NodeRef> listener) {
        this.dropped = listener;
    }

    /** This place's routing table: its neighbours and its range. */
    public FingerTable table() {
        return table;
    }

    /** Completes when the node has its place on a ring (at once for a node alone by design). */
    public CompletableFuture<Void> joined() {
        return joined;
    }

    /** Completes once the node has joined and serves a range: it has a predecessor and holds its records, or is alone. */
    public CompletableFuture<Void> placed() {
        return placed;
    }

    public boolean isClosing() {
        return closing;
    }

    /**
     * Starts the periodic tasks and takes a place: joins through {@code bootstrap} (or, while it
     * does not answer, the other {@code members} in turn) unless it is empty or this node; else,
     * as a founder, through any of the other members that answers; else starts a ring. On the loop.
     */
    public void start(String bootstrap, List<String> members) {
        schedule();
        boolean founder = bootstrap.isEmpty() || bootstrap.equals(self().address());
        List<NodeRef> others = others(members);
        if (founder && others.isEmpty()) {
            joined.complete(null);
            checkPlaced();
        } else if (founder) {
            table.awaitingRecords(true);
            tryMember(others, 0);
        } else {
            table.awaitingRecords(true);
            join(Stream.concat(Stream.of(NodeRef.at(bootstrap)), others.stream()).distinct().toList(), 0);
        }
    }

    /** Runs {@code task} after each wait {@code pace} gives, until the node closes. */
    private void paced(Pace pace, Runnable task) {
        loop.schedule(() -> {
            if (!closing) {
                task.run();
                paced(pace, task);
            }
        }, Math.max(1, pace.next().toMillis()));
    }

    /**
     * Starts the periodic tasks and takes a place beside {@code first}, another place of the same
     * physical node already on the ring ({@link VirtualNodes}): joins through it, or while it does not
     * place this one, through the other {@code members} in turn. On the loop.
     */
    public void startBeside(NodeRef first, List<String> members) {
        schedule();
        table.awaitingRecords(true);
        join(Stream.concat(Stream.of(first), others(members).stream()).distinct().toList(), 0);
    }

    private List<NodeRef> others(List<String> members) {
        return members.stream().filter(m -> !m.equals(self().address())).map(NodeRef::at).toList();
    }

    private void schedule() {
        ranNanos = loop.nanoTime();
        paced(stabilizePace, this::stabilize);
        every(settings.stabilize(), () -> {
            ran();
            if (joined.isDone()) {
                store.maintainReplicas();
            }
        });
        paced(fingerPace, this::fixFingers);
        paced(successorCheckPace, () -> {
            if (joined.isDone()) {
                checkSuccessorFrom(successorChecks++);
            }
        });
        every(settings.checkPredecessor(), this::checkPredecessor);
        every(settings.sweep(), store::sweep);
    }

    private void every(Duration interval, Runnable task) {
        var scheduled = loop.every(() -> {
            if (!closing) {
                task.run();
            }
        }, interval.toMillis());
        if (scheduled != null) {
            tasks.add(scheduled);
        }
    }

    /**
     * Asks the bootstrap node (the first of {@code through}) to place this node, and while it does
     * not, the others in turn, one per join-retry interval, until one does or the node closes: a
     * node restarted while its bootstrap is down still finds the ring.
     */
    private void join(List<NodeRef> through, int attempt) {
        joinThrough(through.get(attempt % through.size()), settings.operationTimeout()).thenAccept(joined -> {
            if (!joined && !closing) {
                counters.increment(prefix + ".join.retries");
                loop.schedule(() -> join(through, attempt + 1), settings.joinRetry().toMillis());
            }
        });
    }

    /** Asks {@code via} to place this node; takes the place it names: true. Never fails. */
    private CompletableFuture<Boolean> joinThrough(NodeRef via, Duration within) {
        return messages.join(via, within).thenApply(placement -> {
            if (closing || !adopt(placement)) {
                return false;
            }
            placedBy = table.successor();
            placedNanos = loop.nanoTime();
            joined.complete(null);
            handed(handedEarly);
            checkPlaced();
            stabilize();
            return true;
        });
    }

    /**
     * A founder (a node without a bootstrap) asks each of the other members in turn to place it,
     * and joins the first ring one of them answers for, fresh like any other: a founder restarted
     * after a crash would otherwise start a ring of its own beside the one that carried on without
     * it, and serve every key from an empty store.
     */
    private void tryMember(List<NodeRef> members, int i) {
        if (closing) {
            return;
        }
        if (i == members.size()) {
            foundUnlessAnyAnswers(members);
            return;
        }
        joinThrough(members.get(i), settings.requestTimeout().multipliedBy(2)).thenAccept(joined -> {
            if (joined) {
                counters.increment(prefix + ".founder.joined");
            } else {
                tryMember(members, i + 1);
            }
        });
    }

    /**
     * No member placed the founder. When one still answers as a node on a ring (a member starting
     * beside this founder does not), the ring lives and only the joins failed (timed out under
     * load, or routed through this node's own address before the ring saw its crash): the founder
     * asks again after the join-retry interval, since founding a ring of its own would serve its
     * old range from an empty store beside the replicas that hold it. Only when none answers does
     * it start a ring; it then asks the first member again at every stabilisation while alone, as
     * a node that lost its last peer does ({@link #rejoin}).
     */
    private void foundUnlessAnyAnswers(List<NodeRef> members) {
        var probes = members.stream().map(messages::onRing).toList();
        CompletableFuture.allOf(probes.toArray(CompletableFuture[]::new)).thenRun(() -> loop.execute(() -> {
            if (closing) {
                return;
            }
            if (probes.stream().anyMatch(CompletableFuture::join)) {
                counters.increment(prefix + ".join.retries");
                loop.schedule(() -> tryMember(members, 0), settings.joinRetry().toMillis());
                return;
            }
            table.awaitingRecords(false);
            lost = members.get(0);
            joined.complete(null);
            checkPlaced();
        }));
    }

    /**
     * A node alone again after it gave up on its last successor asks that node to place it, once
     * per stabilisation until one does: silence under load is not a crash, and two nodes that
     * dropped each other would otherwise serve as two rings for ever, each taking every write
     * (seen: two overloaded nodes, for a whole bench run). What it took alone goes to the ring it
     * rejoins: its successor merges each with its own ({@code RecordMerge}); the other side's records
     * come back through a lone node's hand-over to its first peer ({@link #notified}).
     */
    private void rejoin() {
        if (rejoining) {
            return;
        }
        rejoining = true;
        messages.join(lost, settings.operationTimeout()).thenAccept(placement -> {
            rejoining = false;
            if (closing || !table.successor().equals(self()) || !adopt(placement)) {
                return;
            }
            counters.increment(prefix + ".rejoined");
            lost = null;
            store.handOverAll(table.successor());
            stabilize();
        });
    }

    /** Takes the placement's nodes as successors (and its hints as fingers); false if none is another node. */
    private boolean adopt(Placement placement) {
        var found = new ArrayList<>(placement.successors());
        found.remove(self());
        if (found.isEmpty()) {
            return false;
        }
        table.successors(found);
        placement.hints().forEach(table::hint);
        successorHeardNanos = loop.nanoTime();
        return true;
    }

    /** Stabilise: learn the successor's predecessor and list, adopt a closer successor, notify it. */
    public void stabilize() {
        if (stabilizing || !joined.isDone()) {
            return;
        }
        NodeRef successor = table.successor();
        if (successor.equals(self())) {
            NodeRef predecessor = table.predecessor();
            if (predecessor != null) {
                table.successors(List.of(predecessor)); // a ring of one meets its first peer
            } else if (lost != null) {
                rejoin();
            }
            agreed(predecessor == null && !table.awaitingRecords()); // alone: nobody to disagree with
            return;
        }
        lost = null; // not alone (any more): healed by a rejoin or by another node's notify
        askAgainIfNeverHanded();
        stabilizing = true;
        messages.state(successor).whenComplete((state, failure) -> {
            stabilizing = false;
            if (failure != null) {
                agreed(false);
                stabilizePace.changed();
                successorFailed(successor, failure);
                return;
            }
            heard(successor);
            if (state == null) {
                agreed(false);
                return;
            }
            var rest = new ArrayList<NodeRef>();
            NodeRef between = state.predecessor();
            if (between != null && between.id().inOpen(self().id(), successor.id())) {
                rest.add(between);
            }
            rest.add(successor);
            rest.addAll(state.successors());
            List<NodeRef> before = table.successors();
            table.successors(rest);
            boolean agreed = self().equals(between) && table.predecessor() != null && !table.awaitingRecords();
            agreed(agreed);
            if (!agreed || agreedRounds < SETTLED_ROUNDS || !before.equals(table.successors())) {
                stabilizePace.changed();
            }
            // the successor already names this node its predecessor: telling it again changes nothing
            if (!self().equals(between) || table.awaitingRecords()) {
                messages.notify(table.successor(), table.awaitingRecords());
            }
            if (rest.get(0) == between) {
                // a closer successor: ask it at once. A node placed far from its place (its owner-to-be's
                // predecessor was stale while many joined) otherwise came one peer nearer per round,
                // and served keys of the peers it skipped for half a minute
                stabilize();
            }
        });
    }

    /**
     * Completes once {@link #SETTLED_ROUNDS} stabilisations in a row found this node's successor
     * naming it as predecessor, a predecessor known and its range handed in (or, alone, nothing to
     * wait for): joins, hand-overs and suspicions have calmed down around it.
     */
    public CompletableFuture<Void> settled() {
        if (agreedRounds >= SETTLED_ROUNDS) {
            return CompletableFuture.completedFuture(null);
        }
        var next = new CompletableFuture<Void>();
        settling.add(next);
        return next;
    }

    private void agreed(boolean agreed) {
        agreedRounds = agreed ? agreedRounds + 1 : 0;
        if (agreedRounds >= SETTLED_ROUNDS && !settling.isEmpty()) {
            var waiting = List.copyOf(settling);
            settling.clear();
            waiting.forEach(f -> f.complete(null));
        }
    }

    /**
     * Drops a successor that did not answer. When it is the last node known, only after it has
     * been silent for twice the operation deadline: then this node carries on as a ring of one
     * (as the paper's Chord does), rather than failing every operation for ever.
     */
    private void successorFailed(NodeRef successor, Throwable failure) {
        failed(successor, failure);
        boolean lastKnown = table.successor().equals(successor);
        long silentNanos = loop.nanoTime() - successorHeardNanos;
        if (lastKnown && silentNanos > 2 * settings.operationTimeout().toNanos()) {
            counters.increment(prefix + ".isolated");
            table.abandon(successor);
            if (table.successor().equals(self())) {
                lost = successor;
            }
        }
    }

    /**
     * A request to {@code peer} failed. A refused or lost connection, or an error answer, drops the
     * peer from the routing table at once; a timeout only when it is the last of
     * {@code timeouts-before-failure} in a row, so that one slow answer does not make a live node
     * look dead (a false suspicion can briefly give two nodes the same key range). Overload drops
     * nobody. Returns whether the peer was dropped.
     */
    public boolean failed(NodeRef peer, Throwable failure) {
        Reason reason = DhtException.from(failure).reason();
        if (reason == Reason.OVERLOADED || (reason == Reason.TIMEOUT
                && timeouts.merge(peer, 1, Integer::sum) < settings.timeoutsBeforeFailure())) {
            return false;
        }
        timeouts.remove(peer);
        counters.increment(prefix + ".suspected");
        boolean neighbour = isNeighbour(peer);
        table.remove(peer);
        dropped.accept(peer);
        if (neighbour) {
            agreedRounds = 0; // a finger or a stranger gone does not move the ring around this node
        }
        return true;
    }

    /**
     * {@code peer} did not answer a request ({@code failure} says how). The ring's own traffic
     * ({@code maintenance}), and any failure but a timeout, count towards dropping it
     * ({@link #failed}); a user's timeout only has it probed ({@link #suspect}): an overloaded node
     * whose users' operations time out would otherwise drop live neighbours, and without its
     * predecessor it serves nothing until the next stabilisation.
     */
    public void noAnswer(NodeRef peer, Throwable failure, boolean maintenance) {
        if (maintenance || DhtException.from(failure).reason() != Reason.TIMEOUT) {
            failed(peer, failure);
        } else {
            suspect(peer);
        }
    }

    /**
     * A user's operation got no answer from {@code peer}, which is neither successor nor
     * predecessor. Such timeouts drop nobody (see {@link #failed}), so the peer is probed as the
     * ring's own traffic until it answers or is dropped: a dead finger would otherwise be asked by
     * user operations until the next finger refresh, which pacing puts minutes away. Neighbours are
     * left to stabilisation, which probes them anyway, so that an overload that delays answers
     * never drops a node's neighbours through this.
     */
    public void suspect(NodeRef peer) {
        if (isNeighbour(peer) || peer.equals(self()) || closing || !suspects.add(peer)) {
            return;
        }
        messages.ping(peer).whenComplete((answer, failure) -> {
            suspects.remove(peer);
            if (failure == null) {
                heard(peer);
            } else if (!failed(peer, failure)) {
                suspect(peer);
            }
        });
    }

    private boolean isNeighbour(NodeRef peer) {
        return table.successors().contains(peer) || peer.equals(table.predecessor());
    }

    /**
     * {@code peer} answered, whatever the request: it is alive, and its run of timeouts is over.
     * Under overload the ring's own messages may time out while the users' operations and copies
     * are still answered, and a node that answers is not to be taken for failed (two overloaded
     * peers once dropped each other over and over while each answered the other's writes).
     */
    public void heard(NodeRef peer) {
        timeouts.remove(peer);
        if (peer.equals(table.successor())) {
            successorHeardNanos = loop.nanoTime();
        }
        heardFrom(peer.address());
    }

    /**
     * A request came from {@code address}: when it is the predecessor's, the predecessor is alive
     * and need not be probed (its stabilisation asks this node every round).
     */
    public void heardFrom(String address) {
        NodeRef predecessor = table.predecessor();
        if (predecessor != null && predecessor.address().equals(address)) {
            predecessorHeardNanos = loop.nanoTime();
        }
    }

    /**
     * Notify: {@code candidate} thinks it is this node's predecessor; {@code fresh} when it joined
     * with nothing stored and owns nothing until this node handed it its records. Returns whether
     * this node took it as its predecessor (for a fresh one: and began handing it its records).
     * A fresh candidate waits while this node still waits for its own records: what it holds so
     * far is not the candidate's range, and a hand-over of it would make the candidate the owner
     * of a range with nothing in it (the places of a restarted node join one beside the other, so
     * each meets one that has just joined). The candidate notifies again at its next stabilisation.
     */
    public boolean notified(NodeRef candidate, boolean fresh) {
        if (fresh && !servesOwnRange(candidate)) {
            counters.increment(prefix + ".joins.deferred");
            return false;
        }
        NodeRef old = table.predecessor();
        boolean restarted = fresh && candidate.equals(old);
        // the old predecessor itself lies outside (old, self): only a restarted one gets through
        if (candidate.equals(self()) || (old != null && !candidate.id().inOpen(old.id(), self().id()) && !restarted)) {
            return false;
        }
        boolean wasAlone = old == null && table.successors().isEmpty();
        table.predecessor(candidate);
        predecessorHeardNanos = loop.nanoTime();
        stabilizePace.changed();
        table.hint(candidate);
        checkPlaced();
        if (fresh) {
            handIn(candidate);
        } else if (old != null) {
            // a node joined between the old predecessor and this one: it now owns (old, candidate]
            store.handOver(old.id(), candidate);
        } else if (wasAlone) {
            // a lone node meets its first peer (a join, or the other side of a healed split): the
            // peer owns everything outside (candidate, self] and merges each copy with its own.
            // Not when only the predecessor was dropped (suspected under load): that full copy would
            // load both nodes again and could drop it again (seen: one every minute in a bench run)
            store.handOver(self().id(), candidate);
        }
        return true;
    }

    /**
     * Whether this node holds its own range's records: it was handed them, or it is alone, or it
     * waits for them again after a stall ({@link #ran}) and holds the ones it had, which a
     * successor's hand-over merges with the later writes it brings.
     */
    public boolean servesOwnRange() {
        return !table.awaitingRecords() || stalled || (table.predecessor() == null && table.successors().isEmpty());
    }

    /**
     * {@link #servesOwnRange} for a hand-in to {@code newcomer}. A place that waits for its records
     * after a stall does not hand them to another place of its own node: the two stood still
     * together and were dropped together, so the range went to the next place on another node,
     * which took the writes made meanwhile; this place has not seen them, and the newcomer, handed
     * what this place holds, would own its range with its own older records, where no copy of the
     * newer ones ever reaches it (a fault run lost a binding acknowledged while its owner's node
     * was stopped so). Once this place was handed its records, by that other node or through the
     * next place of its own, the newcomer gets them with the newer ones. The last place of such a
     * run hands in to another node's, which stops a ring whose every node stood still at once
     * from waiting for ever.
     */
    public boolean servesOwnRange(NodeRef newcomer) {
        return servesOwnRange() && !(stalled && newcomer.address().equals(self().address()));
    }

    /**
     * Hands a newcomer its records, then tells it so ({@link RingMessages#handed}): every record
     * this node holds outside (newcomer, self], that is the newcomer's own range and the copies of
     * the ranges before it, which this node held as their successor and the newcomer now holds as
     * theirs. Not only (predecessor, newcomer]: the predecessor this node knows may have crashed
     * unnoticed, or crash before it copied its records to the newcomer, and the newcomer owns that
     * range too as soon as the node before the crashed one notifies it (seen in the overlay
     * simulator: a record acknowledged by its owner and both replicas read as absent from such a
     * newcomer, while the newcomer's successor held its copy). Until handed, the newcomer owns
     * nothing, so it never answers "absent" for a key it has not received yet, nor takes a write
     * on an empty record. One hand-over per newcomer at a time; a failed one is tried again when
     * the newcomer asks again.
     */
    public void handIn(NodeRef newcomer) {
        if (newcomer.equals(handingTo)) {
            return;
        }
        handingTo = newcomer;
        store.handOver(self().id(), newcomer).whenComplete((all, failure) -> {
            handingTo = null;
            if (Boolean.TRUE.equals(all) && !closing) {
                counters.increment(prefix + ".handed-in");
                messages.handed(newcomer);
            }
        });
    }

    /**
     * The node at {@code sender} (an address) says this node holds its range now: so when it placed
     * this node or is its successor.
     */
    public void handed(String sender) {
        if (sender == null || !table.awaitingRecords()) {
            return;
        }
        if ((placedBy != null && sender.equals(placedBy.address()))
                || (joined.isDone() && sender.equals(table.successor().address()))) {
            table.awaitingRecords(false);
            stalled = false;
            handedEarly = null;
            checkPlaced();
        } else {
            handedEarly = sender;
        }
    }

    /**
     * A node placed but never handed its records (the hand-over's end lost, or the node that
     * placed it gone) asks its successor to place it again after twice the operation deadline:
     * otherwise it would serve no range for ever.
     */
    private void askAgainIfNeverHanded() {
        long waited = loop.nanoTime() - placedNanos;
        if (table.awaitingRecords() && placedBy != null && !rejoining
                && waited > 2 * settings.operationTimeout().toNanos()) {
            counters.increment(prefix + ".join.retries");
            placedNanos = loop.nanoTime();
            rejoining = true;
            joinThrough(table.successor(), settings.operationTimeout()).whenComplete((again, failure) -> rejoining = false);
        }
    }

    /**
     * Notes that this node's loop runs now, every stabilisation interval and before every answer
     * as owner. A loop that stood still as long as its peers take to drop a silent node (timeouts
     * before failure times the request timeout: the process stopped, or starved of the CPU) may
     * have been taken for failed: its successor then owns its range and takes writes there that
     * this node has not seen. Such a node owns nothing until its successor hands it its records
     * again, as a fresh node's (merged with what it kept): otherwise a change that waited for it,
     * applied to the record it kept, would be written over a record that lacks the successor's
     * newer writes, and stamped later than them (a removal acknowledged while the owner was stopped
     * came back so in a fault run). Unlike a fresh node it still holds records, and hands them on when asked
     * ({@link #servesOwnRange}): when every node stood still at once, each waits for another.
     */
    private void ran() {
        long now = loop.nanoTime();
        long stood = now - ranNanos;
        ranNanos = now;
        if (stood >= settings.requestTimeout().multipliedBy(settings.timeoutsBeforeFailure()).toNanos()
                && joined.isDone() && anotherNode() && !table.awaitingRecords()) {
            counters.increment(prefix + ".stalls");
            stalled = true;
            table.awaitingRecords(true);
            placedNanos = now;
            stabilizePace.changed();
        }
    }

    /**
     * Whether a successor is on another node, which could have taken this place's range while it
     * stood still: a node alone, whatever its places, stands still with nobody to take over, and
     * its places waiting for each other ({@link #servesOwnRange(NodeRef)}) would wait for ever.
     */
    private boolean anotherNode() {
        return table.successors().stream().anyMatch(n -> !n.address().equals(self().address()));
    }

    /** Completes {@link #placed()} once the node has joined and owns its own id. */
    private void checkPlaced() {
        if (!placed.isDone() && joined.isDone() && !joined.isCompletedExceptionally() && table.owns(self().id())) {
            placed.complete(null);
        }
    }

    /** Refreshes the next finger whose start lies beyond the successor (one lookup per call). */
    public void fixFingers() {
        if (fixing || !joined.isDone()) {
            return;
        }
        NodeRef successor = table.successor();
        while (nextFinger < Id.BITS && start(nextFinger).inHalfOpen(self().id(), successor.id())) {
            finger(nextFinger++, successor);
        }
        if (nextFinger >= Id.BITS) {
            nextFinger = 0;
            return;
        }
        int first = nextFinger;
        Id start = start(first);
        fixing = true;
        messages.ownerOf(start).whenComplete((owner, failure) -> {
            fixing = false;
            if (failure != null || owner == null) {
                fingerPace.changed();
                return;
            }
            if (!Objects.equals(owner.equals(self()) ? null : owner, table.finger(first))) {
                fingerPace.changed();
            }
            // every finger whose start lies in [start, owner] has the same successor
            var reach = start.distanceTo(owner.id());
            int i = first;
            finger(i++, owner);
            while (i < Id.BITS && start.distanceTo(start(i)).compareTo(reach) <= 0) {
                finger(i++, owner);
            }
            nextFinger = i >= Id.BITS ? 0 : i;
        });
    }

    /**
     * Every idle finger interval at first, the wait doubling after each check that found nothing up
     * to {@link #SUCCESSOR_CHECK_IDLES} of them (8 s to about 2 minutes by default): asks the ring, routing from a
     * finger or a successor other than the first (a different one each time, {@code check}
     * choosing), who owns the key just after this node, and takes the answer as successor when it
     * lies between this node and its successor. Stabilisation alone keeps a loop that goes round
     * the ring twice: each node's successor names it as predecessor, and no message ever shows a
     * node the closer one it skips. Many nodes joining at once left such loops (100 nodes of 16
     * places each: half the places had the wrong successor three minutes later, a fifth of the
     * reads were stale and acknowledged records were lost); a lookup that starts in the other lap
     * ends at the node this one skipped, and the stabilisation that follows splices the laps
     * together (ring right within a minute). Counted in {@code PREFIX.successor.skipped}.
     */
    private void checkSuccessorFrom(int check) {
        NodeRef successor = table.successor();
        var starts = new LinkedHashSet<NodeRef>();
        for (int i = Id.BITS - 1; i >= 0; i--) {
            starts.add(table.finger(i)); // farthest first
        }
        starts.addAll(table.successors());
        starts.remove(null);
        starts.remove(successor);
        starts.remove(self());
        if (starts.isEmpty() || successor.equals(self())) {
            return;
        }
        NodeRef via = new ArrayList<>(starts).get(check % starts.size());
        messages.ownerOf(self().id().plusPowerOfTwo(0), via).whenComplete((owner, failure) -> {
            if (failure != null || owner == null || closing || !owner.id().inOpen(self().id(), table.successor().id())) {
                return;
            }
            counters.increment(prefix + ".successor.skipped");
            successorCheckPace.changed();
            var found = new ArrayList<NodeRef>();
            found.add(owner);
            found.addAll(table.successors());
            table.successors(found);
            stabilizePace.changed();
            stabilize();
        });
    }

    private void finger(int i, NodeRef node) {
        table.finger(i, node.equals(self()) ? null : node);
    }

    private Id start(int i) {
        return self().id().plusPowerOfTwo(i);
    }

    /** Check_predecessor: forget a predecessor that does not answer. */
    public void checkPredecessor() {
        NodeRef predecessor = table.predecessor();
        long quiet = settings.stabilizeIdle().plus(settings.requestTimeout()).toNanos();
        if (checking || predecessor == null || loop.nanoTime() - predecessorHeardNanos < quiet) {
            return;
        }
        checking = true;
        messages.probe(predecessor).whenComplete((answer, failure) -> {
            checking = false;
            if (failure == null) {
                heard(predecessor);
            } else if (predecessor.equals(table.predecessor())) {
                failed(predecessor, failure);
            }
        });
    }

    /** A neighbour leaves gracefully, naming its predecessor (null: none) and successors: close the gap. */
    public void left(NodeRef leaver, NodeRef itsPredecessor, List<NodeRef> itsSuccessors) {
        counters.increment(prefix + ".departures");
        dropped.accept(leaver);
        boolean wasPredecessor = leaver.equals(table.predecessor());
        var known = new ArrayList<>(table.successors());
        table.abandon(leaver); // it said so: no need to wait for silence, even if it was the last peer
        if (wasPredecessor) {
            table.predecessor(itsPredecessor);
        }
        if (known.contains(leaver)) {
            known.remove(leaver);
            known.addAll(itsSuccessors);
            known.remove(self());
            known.sort(java.util.Comparator.comparing(n -> self().id().distanceTo(n.id())));
            if (!known.isEmpty()) {
                table.successors(known);
            }
        }
    }

    /**
     * Leaves gracefully: stops the periodic tasks, hands every record to the successor and tells
     * successor and predecessor. Completes when they answered or failed.
     */
    public CompletableFuture<Void> leave() {
        stop();
        NodeRef successor = table.successor();
        if (successor.equals(self())) {
            return CompletableFuture.completedFuture(null);
        }
        NodeRef predecessor = table.predecessor();
        // the records go to the first successor on another node: the places of this node all leave
        // together, and one would hand its records to another that has already handed its own over
        NodeRef heir = table.successors().stream().filter(n -> !n.address().equals(self().address())).findFirst()
                .orElse(null);
        CompletableFuture<Boolean> handed = heir == null ? CompletableFuture.completedFuture(true)
                : store.handOverAll(heir);
        return handed.thenCompose(all -> messages.leaving(successor, predecessor));
    }

    /** Stops the periodic tasks and answers no more, telling nobody: a crash, for tests. */
    public void stop() {
        closing = true;
        tasks.forEach(t -> t.cancel(false));
        var closed = new DhtException(Reason.CLOSED, self() + " closed");
        joined.completeExceptionally(closed);
        placed.completeExceptionally(closed);
    }
}
