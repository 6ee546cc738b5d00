package org.p2psip.dht.chord;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import io.netty.util.concurrent.EventExecutor;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeThread;
import org.p2psip.dht.ring.Membership;
import org.p2psip.dht.ring.Neighbours;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.RingMessages;
import org.p2psip.dht.ring.FingerTable;
import org.p2psip.dht.ring.store.Record;
import org.p2psip.dht.ring.store.RecordLink;
import org.p2psip.dht.ring.store.Store;
import org.p2psip.overlay.OverlayTransport;

/**
 * One Chord node, or one place of a node that takes several ({@link NodePlaces}): the ring core ({@link Membership}, {@link Store}, {@link FingerTable}) spoken
 * in Chord's frames on the overlay transport. It sends the ring's messages and the records'
 * copies ({@link RingMessages}, {@link RecordLink}), answers its peers, and finds keys' owners.
 *
 * <p>Thread confinement instead of locks: every method runs on the transport's event loop (the
 * responder and the answers to this node's requests are called there; {@link ChordDht} hops onto
 * it), so the state needs no synchronisation. Only {@link #counters} are read from other threads.
 */
final class ChordNode implements RingMessages, RecordLink {

    private final NodePlaces host;
    private final OverlayTransport transport;
    private final ChordSettings settings;
    private final FingerTable table;
    private final Store store;
    private final Membership membership;
    private final OwnerAnswers owner;
    private final Counters counters;
    private final NodeThread loop;

    ChordNode(NodePlaces host, Id id, ChordSettings settings, Clock clock, Counters counters) {
        this.host = host;
        this.transport = host.transport();
        this.settings = settings;
        this.counters = counters;
        this.table = new FingerTable(new NodeRef(id, transport.address()), settings.successors(), settings.places());
        this.loop = host.loop();
        this.store = new Store(table, settings.ring(), this, loop, clock, counters, "chord", host.ownerRules());
        this.membership = new Membership(table, store, settings.ring(), loop, this, counters, "chord");
        this.owner = new OwnerAnswers(store, counters, host.view());
    }

    OverlayTransport transport() {
        return transport;
    }

    ChordSettings settings() {
        return settings;
    }

    FingerTable table() {
        return table;
    }

    Store store() {
        return store;
    }

    Membership membership() {
        return membership;
    }

    OwnerAnswers owner() {
        return owner;
    }

    Counters counters() {
        return counters;
    }

    NodeRef self() {
        return table.self();
    }

    EventExecutor loop() {
        return transport.executor();
    }

    /** The same loop, as the ring core uses it. */
    NodeThread ringLoop() {
        return loop;
    }

    CompletableFuture<Void> joined() {
        return membership.joined();
    }

    boolean isClosing() {
        return membership.isClosing();
    }

    /** Whether this place joined the ring (and did not stop): before, it owns no key whatever its table says. */
    boolean onRing() {
        return joined().isDone() && !joined().isCompletedExceptionally();
    }

    /**
     * Keeps the copy a write's answer carried (status:u8, record:blob, then the replica place of
     * this node and the record, see {@link OwnerAnswers}) in that place's store, before the write
     * is acknowledged. False when it cannot be kept (the place is not here, or it is leaving, or
     * the copy is unreadable): the write must not be acknowledged then. True when none was carried.
     */
    boolean keepCarried(byte[] answer) {
        var in = new ChordCodec.Reader(answer);
        try {
            in.u8();
            in.blob();
            if (!in.more()) {
                return true;
            }
            ChordNode place = host.place(in.id());
            Record copy = in.record();
            if (place == null || place.isClosing()) {
                return false;
            }
            place.store().merge(List.of(copy));
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Every node of the ring as this place's node knows it ({@link NodePlaces#view}). */
    org.p2psip.dht.ring.Members view() {
        return host.view();
    }

    /** This node's own step of a lookup: done if the key lies in (self, successor], else closer nodes. */
    IterativeLookup.FindAnswer find(Id key) {
        NodeRef successor = table.successor();
        if (key.inHalfOpen(self().id(), successor.id())) {
            var list = new ArrayList<NodeRef>();
            list.add(successor);
            list.addAll(table.successors().stream().filter(n -> !n.equals(successor)).toList());
            return new IterativeLookup.FindAnswer(true, list);
        }
        List<NodeRef> closer = table.closestPreceding(key, IterativeLookup.candidates());
        if (closer.isEmpty()) {
            return new IterativeLookup.FindAnswer(true, List.of(successor));
        }
        return new IterativeLookup.FindAnswer(false, closer);
    }

    /**
     * Finds the owner of {@code key}: this node if it owns it, else by an iterative lookup.
     * Lookups for operations count in {@code chord.lookup*}; the ring's own (fix-fingers) in
     * {@code chord.maintenance.lookup*}, so that the mean hops the bench reports are the users'.
     * {@code chord.lookup.hops.H} counts the lookups that took H steps, for the distribution.
     */
    CompletableFuture<Route> lookup(Id key, boolean maintenance) {
        String prefix = maintenance ? "chord.maintenance.lookup" : "chord.lookup";
        counters.increment(prefix + "s");
        CompletableFuture<Route> route = table.owns(key)
                ? CompletableFuture.completedFuture(new Route(self(), table.successors(), 0))
                : IterativeLookup.fromTable(this, key, maintenance);
        return route.whenComplete((r, failure) -> {
            if (failure != null) {
                counters.increment(prefix + ".failures");
            } else {
                counters.add(prefix + ".hops", r.hops());
                counters.increment(prefix + ".hops." + r.hops());
            }
        });
    }

    /** Answers a peer's request for this place (the place's id already read); on the loop. */
    CompletionStage<byte[]> respond(String sender, int type, byte[] payload) {
        if (membership.isClosing()) {
            return CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE, self() + " is leaving"));
        }
        membership.heardFrom(sender);
        var in = new ChordCodec.Reader(payload);
        return switch (type) {
            // a node not on a ring yet has no answer worth adopting: two nodes starting together
            // would otherwise take each other for a ring, apart from the one they were to join
            case MessageType.FIND -> joined().isDone() ? done(find(in.id()).bytes())
                    : CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE, self() + " is not on a ring yet"));
            case MessageType.STATE -> done(withNeighbours(new ChordCodec.Writer()).bytes());
            case MessageType.NOTIFY -> {
                membership.notified(in.node(), in.u8() == 1);
                yield done(new byte[0]);
            }
            case MessageType.HANDED -> {
                membership.handed(sender);
                yield done(new byte[0]);
            }
            case MessageType.PING -> done(new byte[0]);
            // a place not on the ring yet takes itself for a ring of one: one hop may reach it before it joined
            case MessageType.GET, MessageType.PUT, MessageType.REMOVE, MessageType.UPDATE -> onRing()
                    ? owner.handle(type, payload, sender) : owner.notOwner(type, payload);
            case MessageType.STORE -> {
                store.merge(StoreMessage.read(payload));
                yield done(new byte[0]);
            }
            case MessageType.LEAVING -> {
                NodeRef leaver = in.node();
                NodeRef itsPredecessor = in.u8() == 1 ? in.node() : null;
                membership.left(leaver, itsPredecessor, in.nodes());
                yield done(new byte[0]);
            }
            default -> CompletableFuture.failedFuture(
                    new DhtException(Reason.UNREACHABLE, "unknown Chord message type " + type));
        };
    }

    private static CompletableFuture<byte[]> done(byte[] answer) {
        return CompletableFuture.completedFuture(answer);
    }

    /** hasPredecessor:u8, [predecessor], successors:nodes: STATE's answer, and the end of LEAVING. */
    private ChordCodec.Writer withNeighbours(ChordCodec.Writer out) {
        NodeRef predecessor = table.predecessor();
        out.u8(predecessor == null ? 0 : 1);
        if (predecessor != null) {
            out.node(predecessor);
        }
        return out.nodes(table.successors());
    }

    private CompletableFuture<byte[]> request(NodeRef to, int type, byte[] payload) {
        return request(to, type, payload, settings.requestTimeout());
    }

    /** A request to the place {@code to}, named in it; one of this node's own places answers without the network. */
    CompletableFuture<byte[]> request(NodeRef to, int type, byte[] payload, Duration deadline) {
        return host.request(to, type, payload, deadline);
    }

    /** A lookup of this node's own id through {@code via}: its owner and successors are this node's successors. */
    @Override
    public CompletableFuture<Placement> join(NodeRef via, Duration within) {
        return IterativeLookup.from(this, via, self().id()).handle((route, failure) -> {
            if (failure != null) {
                return Placement.none();
            }
            var successors = new ArrayList<NodeRef>();
            successors.add(route.owner());
            successors.addAll(route.successors());
            return new Placement(successors, List.of());
        });
    }

    /** A node answers FIND only once it is on a ring. */
    @Override
    public CompletableFuture<Boolean> onRing(NodeRef member) {
        return request(member, MessageType.FIND, new ChordCodec.Writer().id(self().id()).bytes())
                .handle((answer, failure) -> failure == null);
    }

    @Override
    public CompletableFuture<Neighbours> state(NodeRef successor) {
        return request(successor, MessageType.STATE, new byte[0]).thenApply(bytes -> {
            var in = new ChordCodec.Reader(bytes);
            NodeRef predecessor = in.u8() == 1 ? in.node() : null;
            return new Neighbours(predecessor, in.nodes());
        });
    }

    @Override
    public void notify(NodeRef successor, boolean fresh) {
        request(successor, MessageType.NOTIFY, new ChordCodec.Writer().node(self()).u8(fresh ? 1 : 0).bytes());
    }

    @Override
    public CompletableFuture<?> probe(NodeRef predecessor) {
        return ping(predecessor);
    }

    @Override
    public CompletableFuture<?> ping(NodeRef node) {
        return request(node, MessageType.PING, new byte[0]);
    }

    @Override
    public CompletableFuture<NodeRef> ownerOf(Id key) {
        return lookup(key, true).thenApply(Route::owner);
    }

    @Override
    public CompletableFuture<NodeRef> ownerOf(Id key, NodeRef via) {
        return IterativeLookup.from(this, via, key).thenApply(Route::owner);
    }

    @Override
    public void handed(NodeRef newcomer) {
        request(newcomer, MessageType.HANDED, new byte[0]);
    }

    @Override
    public CompletableFuture<Void> leaving(NodeRef successor, NodeRef predecessor) {
        byte[] message = withNeighbours(new ChordCodec.Writer().node(self())).bytes();
        var told = new ArrayList<CompletableFuture<byte[]>>();
        told.add(request(successor, MessageType.LEAVING, message));
        if (predecessor != null && !predecessor.equals(successor)) {
            told.add(request(predecessor, MessageType.LEAVING, message));
        }
        return CompletableFuture.allOf(told.stream().map(f -> f.exceptionally(e -> null)).toArray(CompletableFuture[]::new));
    }

    /** One STORE's payload with as many of {@code records} as it carries. */
    @Override
    public Cut cut(List<Record> records) {
        byte[] payload = StoreMessage.batch(records);
        return new Cut(payload, StoreMessage.count(payload));
    }

    @Override
    public CompletableFuture<?> send(NodeRef target, byte[] message) {
        return host.store(target, message);
    }
}
