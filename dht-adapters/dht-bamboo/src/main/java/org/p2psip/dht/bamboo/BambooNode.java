package org.p2psip.dht.bamboo;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.p2psip.config.Config;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.routing.LeafSet;
import org.p2psip.dht.bamboo.routing.NodeHandle;
import org.p2psip.dht.bamboo.routing.Router;
import org.p2psip.dht.bamboo.routing.Router.Step;
import org.p2psip.dht.bamboo.routing.RoutingTable;
import org.p2psip.dht.bamboo.routing.RttEstimator;
import org.p2psip.dht.bamboo.storage.JeStorage;
import org.p2psip.dht.bamboo.storage.ValueStore;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.bamboo.wire.Message;
import org.p2psip.dht.bamboo.wire.Message.*;
import org.p2psip.dht.bamboo.wire.Network;

/**
 * One Bamboo node: its place on the circle, its leaf set and routing table, its JE storage, and
 * the overlay-wide OpenDHT interface ({@link ValueStore}) that routes each call to its key's root.
 *
 * <p>Threading: all routing state lives on the node's one event-loop thread; requests from the
 * network, storage completions and timers all run there, so no lock is needed. Public methods
 * are thread-safe: they hand work to the loop and return at once.
 *
 * <p>Lookups are iterative: the origin asks each hop for the next with a timeout from that hop's
 * observed round-trip times, drops a hop that fails and asks again from its own tables, then
 * sends the operation to the root with what is left of the deadline (a refused root is dropped
 * and the operation retried; compare-and-set is idempotent, see {@link VersionedRecord}). A node
 * that is not the root answers an operation with a redirect.
 */
public final class BambooNode implements ValueStore, AutoCloseable {

    static final int MAX_RETRIES = 6;
    /** Most nodes a lookup asks a hop to route around (each costs 20 bytes). */
    static final int MAX_AVOIDED = 16;

    private final NodeHandle self;
    private final Config config;
    private final Network network;
    private final JeStorage storage;
    private final Clock clock;
    private final ScheduledExecutorService loop;
    /** Whether the loop is the node's own (a deployment) or shared with other nodes (a simulation), which it never stops. */
    private final boolean ownLoop;
    /** One-shot timers pending on a shared loop, cancelled when the node stops; an own loop's die with it. */
    private final Set<ScheduledFuture<?>> timers = new HashSet<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final LeafSet leafSet;
    private final RoutingTable table;
    private final Router router;
    private final RttEstimator rtt;
    private final Duration deadline;
    private final Duration maxTimeout;
    private final Random random;
    private final Liveness liveness;
    private final RootService root;
    private final Maintenance maintenance;
    private final Rejoin rejoin;
    private final Counters counters = new Counters();
    private volatile boolean closed;
    private boolean leaving;
    /**
     * Between a join's first message and its taking the root's state: the others may know this
     * node already (it asked them the way), but its tables hold only the few nodes met so far,
     * so it must not take itself for any key's root. It sends requests on instead.
     */
    private volatile boolean joining;
    private final boolean appliesChanges;

    /**
     * @param loop    where all the node's work runs
     * @param ownLoop whether the node stops {@code loop} when it stops (a loop of its own)
     * @param openStorage opens the node's storage, its stages completing on {@code loop} or at once
     */
    private BambooNode(NodeHandle self, Config config, Network network, Clock clock, ScheduledExecutorService loop,
                       boolean ownLoop, Function<ScheduledExecutorService, JeStorage> openStorage, OwnerRules ownerRules) {
        this.self = self;
        this.config = config;
        this.network = network;
        this.clock = clock;
        this.loop = loop;
        this.ownLoop = ownLoop;
        this.leafSet = new LeafSet(self, config.get(BambooOptions.LEAF_SET_SIDE));
        this.table = new RoutingTable(self, config.get(BambooOptions.DIGIT_BITS));
        this.router = new Router(self, leafSet, table);
        this.rtt = new RttEstimator(config.get(BambooOptions.MIN_TIMEOUT), config.get(BambooOptions.MAX_TIMEOUT));
        this.deadline = config.get(BambooOptions.DEADLINE);
        this.maxTimeout = config.get(BambooOptions.MAX_TIMEOUT);
        this.random = new Random(self.id().value().longValue());
        this.storage = openStorage.apply(loop);
        this.root = new RootService(this, storage, config.get(BambooOptions.REPLICAS), ownerRules);
        this.appliesChanges = ownerRules != OwnerRules.NONE;
        this.liveness = new Liveness(this, rtt, config);
        this.maintenance = new Maintenance(this, storage, config);
        this.rejoin = new Rejoin(this);
    }

    /**
     * Opens the node's storage in {@code dataDir} (blocking while JE recovers its log, so call it
     * at start-up), starts answering at {@code self.address()} and starts maintenance. The node
     * is alone until {@link #join}.
     */
    public static BambooNode start(NodeHandle self, Config config, Network network, Path dataDir, Clock clock,
                                   OwnerRules ownerRules) {
        ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, loopThreadName(self));
            t.setDaemon(true);
            return t;
        });
        BambooNode node;
        try {
            node = new BambooNode(self, config, network, clock, loop, true, l -> JeStorage.open(dataDir, config, clock, l),
                    ownerRules);
        } catch (RuntimeException e) {
            loop.shutdownNow();
            throw e;
        }
        return started(node);
    }

    /**
     * Starts a node for a simulation: on {@code loop}, which it shares with many other nodes and
     * never stops (no thread of its own), with {@code storage} completing its stages at once on
     * the caller's thread (a {@link JeStorage} of a shared environment). Its timers run on
     * {@code loop}; {@link #close} and {@link #abort} cancel them and leave the loop running.
     */
    static BambooNode start(NodeHandle self, Config config, Network network, ScheduledExecutorService loop,
                            JeStorage storage, Clock clock) {
        try {
            return started(new BambooNode(self, config, network, clock, loop, false, l -> storage, OwnerRules.NONE));
        } catch (RuntimeException e) {
            storage.close();
            throw e;
        }
    }

    private static BambooNode started(BambooNode node) {
        node.network.bind(node.self.address(), node::handle);
        node.maintenance.start();
        return node;
    }

    /**
     * Joins the overlay that the node at {@code bootstrap} belongs to: learns its root's state,
     * then exchanges leaf sets with its new neighbours. Completes when those answered; the
     * periodic maintenance completes the tables. Fails when the bootstrap, the lookup of this
     * node's id and its root's state take longer than one deadline together.
     */
    public CompletionStage<Void> join(String bootstrap) {
        if (bootstrap.isBlank() || bootstrap.equals(self.address())) {
            return CompletableFuture.completedFuture(null);
        }
        return onLoop(() -> {
            joining = true;
            long deadlineAt = nanoTime() + deadline.toNanos();
            return network.request(bootstrap, new Ping(self), min(maxTimeout, deadline))
                    .thenComposeAsync(pong -> {
                        NodeHandle first = ((Pong) pong).from();
                        liveness.heard(first);
                        // from the bootstrap, not from this node's tables: they hold the bootstrap
                        // alone, which makes this node the nearest to its own id, its own "root"
                        return locate(self.id(), deadlineAt, new Step(first, false), 0, 0, new HashSet<>());
                    }, loop)
                    .thenCompose(found -> remaining(deadlineAt).toMillis() <= 0
                            ? CompletableFuture.failedFuture(new DhtException(Reason.TIMEOUT, "joining through " + bootstrap + " ran out of time"))
                            : send(found.root(), new TableRequest(self, -1), min(maxTimeout, remaining(deadlineAt))))
                    .thenCompose(state -> {
                        ((Handles) state).handles().forEach(liveness::heard);
                        joining = false; // its leaf set is now the root's neighbourhood: it may be a root
                        return maintenance.exchangeLeafSets();
                    })
                    .whenComplete((v, e) -> joining = false); // a failed attempt leaves it serving alone until the next
        });
    }

    /**
     * Joins through the first of {@code bootstraps} that answers, trying again every few seconds
     * until one does (nodes of a deployment may start in any order). The returned stage completes
     * once joined; the node serves alone meanwhile. The addresses are also those it rejoins
     * through should it later lose every leaf-set member ({@link Rejoin}).
     */
    public CompletionStage<Void> joinInBackground(List<String> bootstraps) {
        var joined = new CompletableFuture<Void>();
        List<String> others = bootstraps.stream().filter(b -> !b.isBlank() && !b.equals(self.address())).toList();
        rejoin.members(others);
        if (others.isEmpty()) {
            joined.complete(null);
        } else {
            tryJoin(others, 0, joined);
        }
        return joined;
    }

    private void tryJoin(List<String> bootstraps, int attempt, CompletableFuture<Void> joined) {
        if (closed) {
            joined.completeExceptionally(new DhtException(Reason.CLOSED, "node " + self + " closed before joining"));
            return;
        }
        join(bootstraps.get(attempt % bootstraps.size())).whenComplete((v, e) -> {
            if (e == null) {
                joined.complete(null);
            } else {
                if (!schedule(() -> tryJoin(bootstraps, attempt + 1, joined), maxTimeout.multipliedBy(2))) {
                    joined.completeExceptionally(new DhtException(Reason.CLOSED, "node " + self + " closed before joining"));
                }
            }
        });
    }

    // ---- the overlay-wide OpenDHT interface ----

    @Override
    public CompletionStage<Void> put(Id key, byte[] value, Duration ttl, byte[] secretHash) {
        return route(new Put(key, value, ttl.toMillis(), secretHash)).thenApply(m -> null);
    }

    @Override
    public CompletionStage<Page> get(Id key, int max, byte[] placemark) {
        return route(new Get(key, max, placemark)).thenApply(m -> new Page(((Values) m).found(), ((Values) m).placemark()));
    }

    @Override
    public CompletionStage<Removal> remove(Id key, byte[] valueHash, byte[] secret) {
        return route(new Remove(key, valueHash, secret)).thenApply(m -> ((Removed) m).removal());
    }

    /**
     * Compare-and-set of a versioned record at the key's root (see {@link VersionedRecord}):
     * {@code set} (in BindingCodec's encoding) stored if the stored version is {@code expected};
     * empty when done, else the live value that refused it (an empty array for none).
     */
    public CompletionStage<Optional<byte[]>> swap(Id key, long expected, byte[] set, byte[] secret) {
        return route(new Swap(key, expected, set, secret))
                .thenApply(m -> ((Outcome) m).ok() ? Optional.<byte[]>empty() : Optional.of(((Outcome) m).current()));
    }

    /** Whether this node's root applies changes ({@link #apply}): it was given an {@link OwnerRules}. */
    public boolean appliesChanges() {
        return appliesChanges;
    }

    /**
     * Applies a change to {@code aor}'s versioned record at the key's root with the root's
     * {@link OwnerRules}: the record's bytes as the root then holds them (empty for none), whether
     * the change wrote them, and the rules' answer.
     */
    public CompletionStage<Applied> apply(Id key, String aor, byte[] change, byte[] secret) {
        return route(new Apply(key, aor, change, secret)).thenApply(m -> (Applied) m);
    }

    /** Compare-and-remove of a versioned record at the key's root. */
    public CompletionStage<Boolean> forget(Id key, long version, byte[] secret) {
        return route(new Forget(key, version, secret)).thenApply(m -> ((Outcome) m).ok());
    }

    /** Finds the root of {@code key} as the overlay now routes, with the number of hops it took. */
    public CompletionStage<Located> locate(Id key) {
        return onLoop(() -> locate(key, nanoTime() + deadline.toNanos(), null, 0, 0, new HashSet<>()));
    }

    /**
     * A key's root and how many overlay hops the lookup made to reach it (0: this node);
     * {@code via}: the node whose leaf set named the root (this node when it was its own).
     */
    public record Located(NodeHandle root, int hops, NodeHandle via) {
    }

    // ---- routing ----

    private CompletionStage<Message> route(Keyed request) {
        long deadlineAt = nanoTime() + deadline.toNanos();
        return onLoop(() -> attempt(request, deadlineAt, null, 0, new HashSet<>())).thenApply(BambooNode::unlessFailure);
    }

    /** @param avoid the hops that timed out in this operation, which its lookups route around */
    private CompletionStage<Message> attempt(Keyed request, long deadlineAt, Step from, int tries, Set<Id> avoid) {
        return locate(request.key(), deadlineAt, from, 0, tries, avoid).thenCompose(found -> {
            counters.increment("bamboo.lookups");
            counters.add("bamboo.lookup.hops", found.hops());
            counters.increment("bamboo.lookup.hops." + found.hops());
            if (found.root().equals(self)) {
                Step own = ownStep(request);
                if (own.last() && own.node().equals(self)) {
                    return root.execute(request);
                }
                // a hop named this node, or every way on failed: this node is no root of the key
                // by its own leaf set, and a write stored here would be out of every holder's reach
                if (own.last() && tries < MAX_RETRIES) {
                    return attempt(request, deadlineAt, own, tries + 1, avoid);
                }
                return CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE,
                        "no way to the root of " + request.key() + " from " + self));
            }
            return askRoot(request, found, deadlineAt, tries, avoid);
        });
    }

    /**
     * Sends the operation to the root a lookup found. A write's root gets the whole deadline: its
     * work (storage, replicas) takes unknown time under load, and a silent root is found by
     * leaf-set maintenance, not by this request. A read's root gets {@code timeout.max}, then the
     * read is served around it ({@link #readAround}).
     */
    private CompletionStage<Message> askRoot(Keyed request, Located found, long deadlineAt, int tries, Set<Id> avoid) {
        boolean firstRead = request instanceof Get g && g.avoid().isEmpty();
        Duration wait = firstRead ? min(maxTimeout, remaining(deadlineAt)) : remaining(deadlineAt);
        return send(found.root(), request, wait).thenCompose(reply -> {
            if (reply instanceof Redirect r) {
                if (tries < MAX_RETRIES) {
                    return attempt(request, deadlineAt, new Step(r.next().node(), r.next().last()), tries + 1, avoid);
                }
                // the nodes do not agree on the key's root yet (leaf sets still converging):
                // a clear, retryable failure, never the redirect taken for the answer
                return CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE,
                        "no node took " + request.key() + " as its root after " + (tries + 1) + " redirects"));
            }
            return CompletableFuture.completedFuture(reply);
        }).exceptionallyCompose(e -> {
            boolean more = tries < MAX_RETRIES && remaining(deadlineAt).toMillis() > 0;
            if (firstRead && more && DhtException.unwrap(e) instanceof DhtException d && d.reason() == Reason.TIMEOUT) {
                return readAround((Get) request, found, deadlineAt, tries, avoid);
            }
            return retryable(e) && more ? attempt(request, deadlineAt, null, tries + 1, avoid) : CompletableFuture.failedFuture(e);
        });
    }

    /**
     * A read whose root did not answer: asked again, naming that root as one to avoid, of the
     * node whose leaf set named it (in the key's neighbourhood); there the nearest node to the
     * key but the silent root serves it from its copy, as a replica of that root. The silent root
     * is suspected there too, so it is dropped within a few probes if it is dead. Only reads go
     * around a root: a write served by any node but the root could undo a newer one.
     */
    private CompletionStage<Message> readAround(Get get, Located found, long deadlineAt, int tries, Set<Id> avoid) {
        var around = new Get(get.key(), get.max(), get.placemark(), List.of(found.root().id()));
        NodeHandle via = found.via().equals(found.root()) ? self : found.via();
        return attempt(around, deadlineAt, new Step(via, true), tries + 1, avoid);
    }

    /**
     * Where this node sends an operation it found no other root for: by its own leaf set, or for
     * a read going around a silent root, by its leaf set without that root.
     */
    private Step ownStep(Keyed request) {
        return request instanceof Get g && !g.avoid().isEmpty()
                ? router.nextForRead(g.key(), new HashSet<>(g.avoid())) : router.next(request.key());
    }

    /**
     * One lookup step from {@code from} (or from this node's tables). A hop that times out is
     * routed around for the rest of the operation ({@code avoid}) and probed: its short,
     * RTT-based timeout is no proof of death, the probe's strikes are. A hop that names an avoided
     * node is itself avoided for this operation, so the lookup takes another path rather than
     * asking again the way to a node that did not answer.
     */
    private CompletionStage<Located> locate(Id key, long deadlineAt, Step from, int hopsSoFar, int tries, Set<Id> avoid) {
        Step step = from != null ? from : router.next(key, avoid);
        if (step.node().equals(self)) {
            return CompletableFuture.completedFuture(new Located(self, hopsSoFar, self));
        }
        if (step.last()) {
            return CompletableFuture.completedFuture(new Located(step.node(), hopsSoFar + 1, self));
        }
        Duration left = remaining(deadlineAt);
        if (left.toMillis() <= 0) {
            return CompletableFuture.failedFuture(new DhtException(Reason.TIMEOUT, "lookup of " + key + " ran out of time"));
        }
        NodeHandle via = step.node();
        Duration timeout = min(rtt.timeout(via.id()), left);
        return send(via, new Lookup(self, key, avoided(avoid)), timeout).thenCompose(reply -> {
            Hop hop = (Hop) unlessFailure(reply);
            if (hop.node().equals(via) || (joining && hop.node().equals(self))) {
                // a joining node looks up its own id: the hop that names it knows its neighbourhood
                return CompletableFuture.completedFuture(new Located(via, hopsSoFar + 1, via));
            }
            if (!hop.last() && avoid.contains(hop.node().id())) {
                avoid.add(via.id());
                return tries < MAX_RETRIES
                        ? locate(key, deadlineAt, null, hopsSoFar + 1, tries + 1, avoid)
                        : CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE,
                                "every way to " + key + " went through nodes that did not answer"));
            }
            if (hop.last() && !hop.node().equals(self)) {
                return CompletableFuture.completedFuture(new Located(hop.node(), hopsSoFar + 2, via));
            }
            return locate(key, deadlineAt, new Step(hop.node(), hop.last()), hopsSoFar + 1, tries, avoid);
        }).exceptionallyCompose(e -> {
            if (DhtException.unwrap(e) instanceof DhtException d && d.reason() == Reason.TIMEOUT) {
                avoid.add(via.id());
                liveness.suspect(via);
            }
            return retryable(e) && tries < MAX_RETRIES
                    ? locate(key, deadlineAt, null, hopsSoFar, tries + 1, avoid)
                    : CompletableFuture.failedFuture(e);
        });
    }

    /**
     * What a lookup tells each hop to route around: the nodes that did not answer it so far (a
     * hop would otherwise name the same dead entry again and again), at most {@link #MAX_AVOIDED}.
     */
    private static List<Id> avoided(Set<Id> avoid) {
        return avoid.stream().limit(MAX_AVOIDED).toList();
    }

    // ---- requests arriving from the network ----

    private CompletionStage<Message> handle(Message request) {
        var answer = new CompletableFuture<Message>();
        try {
            loop.execute(() -> {
                CompletionStage<Message> reply;
                try {
                    reply = closed ? done(new Failure(Reason.CLOSED, "node " + self + " is closed")) : dispatch(request);
                } catch (RuntimeException e) {
                    reply = CompletableFuture.failedFuture(e);
                }
                reply.whenComplete((m, e) -> answer.complete(e == null ? m : failure(e)));
            });
        } catch (RejectedExecutionException e) {
            answer.complete(new Failure(Reason.CLOSED, "node " + self + " is closed"));
        }
        return answer;
    }

    private CompletionStage<Message> dispatch(Message request) {
        if (request instanceof Ping p) {
            liveness.heard(p.from());
            return done(new Pong(self));
        } else if (request instanceof LeafSetExchange x) {
            liveness.heard(x.from());
            x.members().forEach(liveness::learn);
            return done(new Handles(maintenance.missingFrom(x)));
        } else if (request instanceof TableRequest t) {
            liveness.heard(t.from());
            return done(new Handles(maintenance.tableState(t.row())));
        } else if (request instanceof Lookup l) {
            liveness.heard(l.from());
            NodeHandle on = joining ? router.nearestOther(l.key(), l.from().id()) : null;
            if (on != null) {
                return done(new Hop(on, false));
            }
            Step step = l.key().equals(l.from().id()) ? router.nextForJoin(l.key(), l.from().id())
                    : router.next(l.key(), new HashSet<>(l.avoid()));
            liveness.vouchFor(step.node());
            return done(new Hop(step.node(), step.last() || step.node().equals(self)));
        } else if (request instanceof Keyed k) {
            NodeHandle on = joining ? router.nearestOther(k.key(), self.id()) : null;
            if (on != null) {
                return done(new Redirect(new Hop(on, false)));
            }
            Step step = ownStep(k);
            if (k instanceof Get g) {
                liveness.suspectAmongMembers(g.avoid());
            }
            if (step.node().equals(self)) {
                // the root only by its leaf set's word: nearest among the nodes it merely knows
                // would make it a root no other node's repair or lookup finds
                return step.last() ? root.execute(k)
                        : done(new Failure(Reason.UNREACHABLE, "node " + self + " knows no way to " + k.key()));
            }
            liveness.vouchFor(step.node());
            return done(new Redirect(new Hop(step.node(), step.last())));
        } else if (request instanceof Store s) {
            liveness.heard(s.from());
            return storage.mergeAll(s.copies()).thenApply(made -> {
                maintenance.spreadMerged(made);
                return new Done();
            });
        }
        return done(new Failure(Reason.UNREACHABLE, "a node does not answer " + request.getClass().getSimpleName()));
    }

    /**
     * Sends a request and completes on the loop; the round trip feeds the timeout estimate, a peer
     * that refuses is {@link Liveness#failed}, one that times out is {@link Liveness#timedOut}.
     */
    CompletionStage<Message> send(NodeHandle to, Message request, Duration timeout) {
        if (closed) {
            return CompletableFuture.failedFuture(new DhtException(Reason.CLOSED, "node " + self + " is closed"));
        }
        long start = nanoTime();
        var reply = new CompletableFuture<Message>();
        network.request(to.address(), request, timeout).whenComplete((m, e) -> onLoopOrNow(() -> {
            if (e == null) {
                rtt.observe(to.id(), Duration.ofNanos(nanoTime() - start));
                liveness.answered(to);
                reply.complete(m);
            } else {
                Throwable cause = DhtException.unwrap(e);
                if (cause instanceof DhtException d && d.reason() == Reason.UNREACHABLE) {
                    liveness.failed(to);
                } else if (cause instanceof DhtException d && d.reason() == Reason.TIMEOUT) {
                    liveness.timedOut(to, !(request instanceof Lookup));
                }
                reply.completeExceptionally(cause);
            }
        }, reply));
        return reply;
    }

    // ---- plumbing ----

    NodeHandle self() {
        return self;
    }

    LeafSet leafSet() {
        return leafSet;
    }

    Liveness liveness() {
        return liveness;
    }

    Maintenance maintenance() {
        return maintenance;
    }

    Rejoin rejoin() {
        return rejoin;
    }

    /** Whether a join is under way: between its first message and its taking the root's state. */
    boolean isJoining() {
        return joining;
    }

    RoutingTable table() {
        return table;
    }

    Random random() {
        return random;
    }

    Clock clock() {
        return clock;
    }

    /**
     * Now, in nanoseconds, on the clock the network's loop schedules by (the machine's, or a
     * simulation's virtual one): every deadline, round trip and dead mark of the node reads it.
     */
    long nanoTime() {
        return network.nanoTime();
    }

    ScheduledExecutorService loop() {
        return loop;
    }

    Duration maxTimeout() {
        return maxTimeout;
    }

    /** The deadline of one operation ({@code p2psip.bamboo.deadline}). */
    Duration deadline() {
        return deadline;
    }

    Duration timeoutFor(NodeHandle node) {
        return rtt.timeout(node.id());
    }

    boolean isClosed() {
        return closed;
    }

    /** The node's members, for tests and operators; read on the loop. */
    public CompletionStage<List<NodeHandle>> leafSetMembers() {
        return onLoop(() -> CompletableFuture.completedFuture(leafSet.members()));
    }

    /** The keys this node's storage holds now (as root or replica), for tests and operators. */
    public CompletionStage<List<Id>> storedKeys() {
        return onLoop(() -> storage.snapshot().thenApply(all -> all.stream().map(kv -> kv.key()).toList()));
    }

    public NodeHandle handle() {
        return self;
    }

    public Map<String, Long> metrics() {
        var m = new HashMap<>(storage.metrics());
        m.putAll(counters.snapshot("bamboo.lookups", "bamboo.lookup.hops"));
        m.putAll(liveness.metrics());
        m.putAll(maintenance.metrics());
        m.putAll(rejoin.metrics());
        return m;
    }

    /**
     * Leaves the overlay: hands every key this node holds to the nodes that will hold it once it
     * is gone (waiting at most one deadline; what is not handed over is still on the replicas),
     * then stops as {@link #abort} does. On a loop of its own it returns once stopped and must
     * not be called on that loop; on a shared loop (a simulation) it returns at once, since the
     * hand-over needs the loop the caller drives, and the node stops as that loop runs on
     * ({@link #stopped}).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (!ownLoop) {
            leave();
            return;
        }
        if (!Thread.currentThread().getName().equals(loopThreadName(self))) {
            try {
                onLoop(maintenance::handOver).toCompletableFuture().get(deadline.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // best effort: the replicas hold the keys, and their repair restores the count
            }
        }
        abort();
    }

    /** On a shared loop: hands the keys over, then stops, at the latest one deadline later. */
    private void leave() {
        if (leaving) {
            return;
        }
        leaving = true;
        schedule(this::abort, deadline);
        onLoop(maintenance::handOver).whenComplete((v, e) -> abort());
    }

    /**
     * Stops without a word, as a crash does: stops answering (requests to it are refused), stops
     * its timers, closes the storage; a loop of its own is stopped, a shared one left running.
     */
    public void abort() {
        if (closed) {
            return;
        }
        closed = true;
        network.unbind(self.address());
        maintenance.stop();
        storage.close();
        if (ownLoop) {
            loop.shutdown();
            try {
                loop.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            timers.forEach(t -> t.cancel(false));
            timers.clear();
        }
        stopped.complete(null);
    }

    /** Completes once the node has stopped (closed or aborted). */
    public CompletionStage<Void> stopped() {
        return stopped;
    }

    /**
     * Runs {@code task} on the loop after {@code delay}, unless the node has stopped by then;
     * false if it has stopped already. Call it on the loop.
     */
    boolean schedule(Runnable task, Duration delay) {
        if (closed) {
            return false;
        }
        if (ownLoop) {
            try {
                loop.schedule(() -> {
                    if (!closed) {
                        task.run();
                    }
                }, delay.toMillis(), TimeUnit.MILLISECONDS);
                return true;
            } catch (RejectedExecutionException stopping) {
                return false;
            }
        }
        // one thread drives a shared loop: the timer is known before it can run
        var timer = new ScheduledFuture<?>[1];
        timer[0] = loop.schedule(() -> {
            timers.remove(timer[0]);
            if (!closed) {
                task.run();
            }
        }, delay.toMillis(), TimeUnit.MILLISECONDS);
        timers.add(timer[0]);
        return true;
    }

    private static String loopThreadName(NodeHandle self) {
        return "bamboo-node-" + self.id().toString().substring(0, 6);
    }

    /** Runs {@code work} on the loop and passes its stage on; fails CLOSED when the node is closed. */
    <T> CompletionStage<T> onLoop(Supplier<CompletionStage<T>> work) {
        var result = new CompletableFuture<T>();
        if (closed) {
            return CompletableFuture.failedFuture(new DhtException(Reason.CLOSED, "node " + self + " is closed"));
        }
        try {
            loop.execute(() -> {
                if (closed) {
                    result.completeExceptionally(new DhtException(Reason.CLOSED, "node " + self + " is closed"));
                    return;
                }
                try {
                    work.get().whenComplete((v, e) -> {
                        if (e == null) {
                            result.complete(v);
                        } else {
                            result.completeExceptionally(DhtException.unwrap(e));
                        }
                    });
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new DhtException(Reason.CLOSED, "node " + self + " is closed"));
        }
        return result;
    }

    private void onLoopOrNow(Runnable task, CompletableFuture<?> fallback) {
        try {
            loop.execute(() -> {
                if (closed) {
                    fallback.completeExceptionally(new DhtException(Reason.CLOSED, "node " + self + " is closed"));
                } else {
                    task.run();
                }
            });
        } catch (RejectedExecutionException e) {
            fallback.completeExceptionally(new DhtException(Reason.CLOSED, "node " + self + " is closed"));
        }
    }

    static CompletionStage<Message> done(Message m) {
        return CompletableFuture.completedFuture(m);
    }

    /** The answer to a request this node failed to serve: a failure not named otherwise was its own work's, its storage's. */
    static Message failure(Throwable e) {
        DhtException d = DhtException.from(e, Reason.STORAGE);
        return new Failure(d.reason(), String.valueOf(d.getMessage()));
    }

    private static Message unlessFailure(Message m) {
        if (m instanceof Failure f) {
            throw new DhtException(f.reason(), "remote node: " + f.text());
        }
        return m;
    }

    private static boolean retryable(Throwable e) {
        return DhtException.unwrap(e) instanceof DhtException d && (d.reason() == Reason.UNREACHABLE || d.reason() == Reason.TIMEOUT);
    }

    private Duration remaining(long deadlineAt) {
        return Duration.ofNanos(Math.max(0, deadlineAt - nanoTime()));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
