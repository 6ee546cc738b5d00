package org.p2psip.dht.chord;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.overlay.Counters;
import org.p2psip.overlay.Transport;

/**
 * One Chord node: its routing table, its records, the answers it gives peers and the periodic
 * tasks of the paper (stabilize, fix_fingers, check_predecessor), plus join and graceful leave.
 *
 * <p>Thread confinement instead of locks: every method runs on the transport's event loop (the
 * responder and the answers to this node's requests are called there; {@link ChordDht} hops onto
 * it), so the state needs no synchronisation. Only {@link #counters} are read from other threads.
 */
final class ChordNode {

    static final int TIMEOUTS_BEFORE_SUSPICION = 3;

    private final Transport transport;
    private final ChordSettings settings;
    private final RoutingTable table;
    private final Storage storage;
    private final Counters counters;
    private final CompletableFuture<Void> joined = new CompletableFuture<>();
    private final List<ScheduledFuture<?>> tasks = new ArrayList<>();
    private final Membership membership;
    private final Map<NodeRef, Integer> timeouts = new HashMap<>();
    private volatile boolean closing;

    ChordNode(Transport transport, Id id, ChordSettings settings, Clock clock, Counters counters) {
        this.transport = transport;
        this.settings = settings;
        this.counters = counters;
        this.table = new RoutingTable(new NodeRef(id, transport.address()), settings.successors());
        this.storage = new Storage(this, clock, counters);
        this.membership = new Membership(this);
    }

    Transport transport() {
        return transport;
    }

    ChordSettings settings() {
        return settings;
    }

    RoutingTable table() {
        return table;
    }

    Storage storage() {
        return storage;
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

    CompletableFuture<Void> joined() {
        return joined;
    }

    /** See {@link Membership#settled()}; on the loop. */
    CompletableFuture<Void> settled() {
        return membership.settled();
    }

    boolean isClosing() {
        return closing;
    }

    /**
     * Starts serving and the periodic tasks; joins through {@code bootstrap} (or, while it does not
     * answer, the other {@code members} in turn) unless it is empty or this node, else through any
     * other of {@code members} that answers, else starts a ring.
     */
    void start(String bootstrap, List<String> members) {
        transport.serve(this::respond);
        loop().execute(() -> {
            every(settings.stabilize(), membership::stabilize);
            every(settings.stabilize(), storage::maintainReplicas);
            every(settings.fixFingers(), membership::fixFingers);
            every(settings.checkPredecessor(), membership::checkPredecessor);
            every(settings.sweep(), storage::sweep);
            boolean founder = bootstrap.isEmpty() || bootstrap.equals(self().address());
            List<NodeRef> others = members.stream().filter(m -> !m.equals(self().address())).map(NodeRef::at).toList();
            if (founder && others.isEmpty()) {
                joined.complete(null);
            } else if (founder) {
                table.awaitingRecords(true);
                membership.found(others);
            } else {
                table.awaitingRecords(true);
                membership.join(Stream.concat(Stream.of(NodeRef.at(bootstrap)), others.stream()).distinct().toList());
            }
        });
    }

    private void every(Duration interval, Runnable task) {
        tasks.add(loop().scheduleWithFixedDelay(() -> {
            if (!closing) {
                task.run();
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS));
    }

    /** The first r successors: where this node's records are copied. */
    List<NodeRef> replicaTargets() {
        return table.successors().stream().limit(settings.replicas()).toList();
    }

    /**
     * A request to {@code peer} failed. A refused or lost connection, or an error answer, drops the
     * peer from the routing table at once; a timeout only when it is the third in a row, so that
     * one slow answer does not make a live node look dead (a false suspicion can briefly give two
     * nodes the same key range). Overload drops nobody. Returns whether the peer was dropped.
     */
    boolean failed(NodeRef peer, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        Reason reason = cause instanceof DhtException d ? d.reason() : Reason.UNREACHABLE;
        if (reason == Reason.OVERLOADED
                || (reason == Reason.TIMEOUT && timeouts.merge(peer, 1, Integer::sum) < TIMEOUTS_BEFORE_SUSPICION)) {
            return false;
        }
        timeouts.remove(peer);
        counters.increment("chord.suspected");
        boolean neighbour = table.successors().contains(peer) || peer.equals(table.predecessor());
        table.remove(peer);
        if (neighbour) {
            membership.unsettle(); // a finger or a stranger gone does not move the ring around this node
        }
        return true;
    }

    /** {@code peer} answered: its run of timeouts is over. */
    void heard(NodeRef peer) {
        timeouts.remove(peer);
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
     */
    CompletableFuture<Route> lookup(Id key, boolean maintenance) {
        String prefix = maintenance ? "chord.maintenance.lookup" : "chord.lookup";
        counters.increment(prefix + "s");
        CompletableFuture<Route> route = table.owns(key)
                ? CompletableFuture.completedFuture(new Route(self(), table.successors(), 0))
                : IterativeLookup.fromTable(this, key);
        return route.whenComplete((r, failure) -> {
            if (failure != null) {
                counters.increment(prefix + ".failures");
            } else {
                counters.add(prefix + ".hops", r.hops());
            }
        });
    }

    /** Answers a peer's request; on the loop. */
    private CompletionStage<byte[]> respond(String sender, int type, byte[] payload) {
        if (closing) {
            return CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE, self() + " is leaving"));
        }
        var in = new Wire.Reader(payload);
        return switch (type) {
            // a node not on a ring yet has no answer worth adopting: two nodes starting together
            // would otherwise take each other for a ring, apart from the one they were to join
            case MessageType.FIND -> joined.isDone() ? done(find(in.id()).bytes())
                    : CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE, self() + " is not on a ring yet"));
            case MessageType.STATE -> done(membership.state());
            case MessageType.NOTIFY -> {
                membership.notified(in.node(), in.u8() == 1);
                yield done(new byte[0]);
            }
            case MessageType.HANDED -> {
                membership.handed(sender);
                yield done(new byte[0]);
            }
            case MessageType.PING -> done(new byte[0]);
            case MessageType.GET, MessageType.PUT, MessageType.REMOVE -> storage.handle(type, payload);
            case MessageType.STORE -> {
                storage.merge(Storage.readCopies(payload));
                yield done(new byte[0]);
            }
            case MessageType.LEAVING -> {
                membership.leaving(in);
                yield done(new byte[0]);
            }
            default -> CompletableFuture.failedFuture(
                    new DhtException(Reason.UNREACHABLE, "unknown Chord message type " + type));
        };
    }

    private static CompletableFuture<byte[]> done(byte[] answer) {
        return CompletableFuture.completedFuture(answer);
    }

    /**
     * Leaves gracefully: hands every record to the successor, tells successor and predecessor to
     * close the gap, and stops the periodic tasks. Completes when the peers answered or failed.
     */
    CompletableFuture<Void> leave() {
        closing = true;
        tasks.forEach(t -> t.cancel(false));
        joined.completeExceptionally(new DhtException(Reason.CLOSED, self() + " closed"));
        NodeRef successor = table.successor();
        if (successor.equals(self())) {
            return CompletableFuture.completedFuture(null);
        }
        return storage.handOverAll(successor).thenCompose(handed -> membership.announceLeave());
    }

    /** Stops the periodic tasks and answers no more, telling nobody: a crash, for tests. */
    void leaveSilently() {
        closing = true;
        tasks.forEach(t -> t.cancel(false));
    }

    /** Nodes known, ordered by distance clockwise from this node: for merging successor lists. */
    Comparator<NodeRef> clockwise() {
        return Comparator.comparing(n -> self().id().distanceTo(n.id()));
    }
}
