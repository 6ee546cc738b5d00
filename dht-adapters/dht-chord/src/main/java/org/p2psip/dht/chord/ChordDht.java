package org.p2psip.dht.chord;

import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Counters;
import org.p2psip.dht.Dht;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.overlay.OverlaySettings;
import org.p2psip.overlay.TcpTransport;
import org.p2psip.overlay.OverlayTransport;

/**
 * The Chord backend of the {@link Dht} service: a key's owner is the successor of SHA-1(AOR);
 * get, put and remove find it by an iterative lookup and ask it, retrying through a fresh lookup
 * while the ring is repairing, within the operation's deadline.
 *
 * <p>Thread-safe: every call hops onto the node's event loop and returns at once; stages complete
 * on that loop.
 */
public final class ChordDht implements Dht {

    /**
     * The last byte of every write this node sends: it takes its copy in the owner's answer when
     * it holds one of the owner's replicas (see OwnerAnswers), and keeps it before it acknowledges.
     */
    private static final int TAKES_COPY = 1;

    /** Every place of the node; package-private so that this package's tests read inside it. */
    final NodePlaces places;
    /** The first place: the node as a single-place ring knows it. */
    final ChordNode node;
    private final Counters counters;
    private final boolean appliesChanges;
    private volatile boolean closed;

    private ChordDht(NodePlaces places, Counters counters, boolean appliesChanges) {
        this.places = places;
        this.appliesChanges = appliesChanges;
        this.node = places.first();
        this.counters = counters;
    }

    /**
     * Starts a node on TCP as the configuration says ({@link NodeOptions} address, bootstrap and
     * secret; {@link ChordOptions}) and begins joining. Refuses (IllegalArgumentException) to start
     * without {@code p2psip.overlay.secret}. Returns once the socket is bound; operations fail with
     * UNREACHABLE until the node has joined ({@link #joined()}).
     */
    public static ChordDht start(Config config, Clock clock, OwnerRules ownerRules) {
        OverlaySettings overlay = OverlaySettings.from(config);
        TcpTransport transport = TcpTransport.bind(config.get(NodeOptions.OVERLAY_ADDRESS), overlay);
        return start(transport, config, clock, ownerRules);
    }

    /** {@link #start(Config, Clock, OwnerRules)} for a node that applies no changes ({@link #update} refused). */
    public static ChordDht start(Config config, Clock clock) {
        return start(config, clock, OwnerRules.NONE);
    }

    /**
     * Starts a node on {@code transport} (its address is the node's) and begins joining, as
     * {@link #start(Config, Clock, OwnerRules)} does with the configuration's bootstrap, members and
     * {@link ChordOptions}; the transport's settings already hold the secret. The node owns the
     * transport from now on and closes it when it closes.
     */
    public static ChordDht start(OverlayTransport transport, Config config, Clock clock, OwnerRules ownerRules) {
        String configuredId = config.get(ChordOptions.NODE_ID);
        Id id = configuredId.isEmpty() ? Id.hash(transport.address()) : Id.parse(configuredId);
        var counters = new Counters();
        var places = new NodePlaces(transport, id, ChordSettings.from(config), clock, counters, ownerRules);
        places.start(config.get(NodeOptions.OVERLAY_BOOTSTRAP), NodeOptions.list(config.get(NodeOptions.OVERLAY_MEMBERS)));
        return new ChordDht(places, counters, ownerRules != OwnerRules.NONE);
    }

    /** {@link #start(OverlayTransport, Config, Clock, OwnerRules)} for a node that applies no changes. */
    public static ChordDht start(OverlayTransport transport, Config config, Clock clock) {
        return start(transport, config, clock, OwnerRules.NONE);
    }

    /** Completes when every place of the node has found its place on the ring (at once for a node alone with one place). */
    public CompletionStage<Void> joined() {
        return CompletableFuture.allOf(places.places().stream().map(ChordNode::joined).toArray(CompletableFuture[]::new));
    }

    /**
     * Completes once this node and its successor have agreed on each other, with its range handed
     * to it, for {@link org.p2psip.dht.ring.Membership#SETTLED_ROUNDS} stabilisations in a row (at once when it is
     * alone by design, with no other members).
     */
    @Override
    public CompletionStage<Void> settled() {
        return onLoop(() -> CompletableFuture.allOf(places.places().stream().map(p -> p.membership().settled())
                .toArray(CompletableFuture[]::new)));
    }

    /** This node's overlay address and the id of its first place. */
    public NodeRef self() {
        return node.self();
    }

    @Override
    public CompletionStage<BindingSet> get(String aor) {
        counters.increment("chord.gets");
        return operation(aor, MessageType.GET, new ChordCodec.Writer().string(aor).bytes(), true,
                (status, body) -> record(aor, body));
    }

    @Override
    public CompletionStage<Boolean> put(BindingSet next) {
        return putOrCurrent(next).thenApply(Optional::isEmpty);
    }

    /** One request: the owner answers a refused put with the record (CONFLICT carries it). */
    @Override
    public CompletionStage<Optional<BindingSet>> putOrCurrent(BindingSet next) {
        counters.increment("chord.puts");
        byte[] payload = new ChordCodec.Writer().blob(BindingCodec.encode(next)).u8(TAKES_COPY).bytes();
        return operation(next.aor(), MessageType.PUT, payload, false, (status, body) -> status == MessageType.OK
                ? Optional.<BindingSet>empty()
                : Optional.of(record(next.aor(), body)));
    }

    @Override
    public boolean appliesChanges() {
        return appliesChanges;
    }

    /**
     * One request: the owner applies the change and answers the record written (OK) or found
     * (UNCHANGED), with the rules' answer.
     */
    @Override
    public CompletionStage<Updated> update(String aor, byte[] change) {
        counters.increment("chord.updates");
        byte[] payload = new ChordCodec.Writer().string(aor).blob(change).u8(TAKES_COPY).bytes();
        return operation(aor, MessageType.UPDATE, payload, false, (status, body) -> switch (status) {
            case MessageType.OK, MessageType.UNCHANGED -> {
                var in = new ChordCodec.Reader(body);
                yield new Updated(record(aor, in.blob()), status == MessageType.OK, in.blob());
            }
            default -> throw new MalformedBindingException(node.self() + ": the owner of " + aor
                    + " could not read the change (status " + status + ")");
        });
    }

    @Override
    public CompletionStage<Boolean> remove(String aor, long version) {
        counters.increment("chord.removes");
        byte[] payload = new ChordCodec.Writer().string(aor).u64(version).u8(TAKES_COPY).bytes();
        return operation(aor, MessageType.REMOVE, payload, false, (status, body) -> status == MessageType.OK);
    }

    private static BindingSet record(String aor, byte[] body) {
        return body.length == 0 ? BindingSet.absent(aor) : BindingCodec.decode(body);
    }

    /**
     * Runs one operation at the key's owner. {@code read} turns the owner's answer, OK or CONFLICT
     * with its body, into the result (NOT_OWNER never reaches it: OwnerCall asks again).
     */
    private <T> CompletionStage<T> operation(String aor, int type, byte[] payload, boolean idempotent,
                                             BiFunction<Integer, byte[], T> read) {
        long deadline = node.ringLoop().nanoTime() + node.settings().operationTimeout().toNanos();
        Id key = Id.hash(aor);
        return onLoop(() -> new OwnerCall(places.placeFor(key), key, type, payload, idempotent, deadline).run()
                .thenApply(answer -> {
                    var in = new ChordCodec.Reader(answer);
                    int status = in.u8();
                    byte[] body = in.blob();
                    return read.apply(status, body);
                }))
                .whenComplete((result, failure) -> {
                    if (failure != null) {
                        counters.increment("chord.operation.failures");
                    }
                });
    }

    private <T> CompletableFuture<T> onLoop(java.util.function.Supplier<CompletableFuture<T>> work) {
        if (closed) {
            return CompletableFuture.failedFuture(new DhtException(Reason.CLOSED, node.self() + " is closed"));
        }
        return node.ringLoop().call(work, node.self().toString());
    }

    @Override
    public Set<String> levels() {
        return Set.of("chord.records", "chord.removed", "chord.range.permille", "chord.range.ppm", "chord.places",
                "chord.members", "chord.members.large");
    }

    @Override
    public Map<String, Long> metrics() {
        var all = new TreeMap<String, Long>(node.transport().metrics());
        all.putAll(counters.snapshot("chord.lookups", "chord.lookup.hops", "chord.lookup.failures",
                "chord.gets", "chord.puts", "chord.updates", "chord.removes", "chord.operation.failures", "chord.replica.failures",
                "chord.one-hop", "chord.one-hop.redirects", "chord.one-hop.fallbacks", "chord.copies.carried",
                "chord.copy-frames", "chord.copy-frame.stores"));
        all.put("chord.records", places.records());
        all.put("chord.removed", places.markers());
        long ppm = places.rangePpm();
        all.put("chord.range.permille", ppm < 0 ? -1 : ppm / 1000);
        all.put("chord.range.ppm", ppm);
        all.put("chord.places", (long) places.places().size());
        all.put("chord.members", (long) places.view().size());
        all.put("chord.members.large", places.view().isLarge() ? 1L : 0L);
        return all;
    }

    /**
     * Leaves the ring gracefully (records handed to the successor, neighbours told), waiting at
     * most a few request deadlines, then closes the transport.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        CompletableFuture<Void> left = onLoop(() -> CompletableFuture.allOf(places.places().stream()
                .map(p -> p.membership().leave()).toArray(CompletableFuture[]::new)));
        closed = true;
        if (!node.loop().inEventLoop()) {
            try {
                left.get(3 * node.settings().requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                counters.increment("chord.leave.incomplete"); // peers will repair as after a failure
            }
        }
        node.transport().close();
    }

    /**
     * Stops the node without a word to its peers, as a killed process would: its neighbours find
     * out by its silence, and what it held is out of the ring's reach. For tests and the overlay
     * simulator; a deployment kills the process.
     */
    public void crash() {
        closed = true;
        node.loop().execute(() -> places.places().forEach(p -> p.membership().stop()));
        node.transport().close();
    }
}
