package org.p2psip.dht.chord;

import org.p2psip.dht.contract.DhtContract;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.Neighbours;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.overlay.InProcessNetwork;
import org.p2psip.overlay.OverlaySettings;

/** An in-process Chord ring for tests: nodes joined through the first, with fast maintenance. */
final class Ring implements AutoCloseable {

    final InProcessNetwork network;
    final List<ChordDht> nodes = new ArrayList<>();
    private final Clock clock;
    private final boolean tcp;
    private int next;
    private Config base = fastConfig();

    Ring(Clock clock, boolean tcp) {
        this(clock, tcp, 2);
    }

    /** In-process nodes on {@code threads} loop threads: one each when a test stops a node's loop alone. */
    Ring(Clock clock, boolean tcp, int threads) {
        this.clock = clock;
        this.tcp = tcp;
        this.network = new InProcessNetwork(threads);
    }

    static Config fastConfig() {
        return Config.empty()
                .with(NodeOptions.OVERLAY_SECRET.name(), "test-secret")
                .with(ChordOptions.STABILIZE_INTERVAL.name(), "50ms")
                .with(ChordOptions.FIX_FINGERS_INTERVAL.name(), "20ms")
                .with(ChordOptions.CHECK_PREDECESSOR_INTERVAL.name(), "100ms")
                .with(ChordOptions.REQUEST_TIMEOUT.name(), "1s")
                .with(ChordOptions.OPERATION_TIMEOUT.name(), "5s")
                // one place per node: these tests find a key's owner, and a node's neighbours, by its one id
                .with(ChordOptions.PLACES.name(), "1");
    }

    /** Sets an option of the nodes added from now on. */
    Ring with(String option, String value) {
        base = base.with(option, value);
        return this;
    }

    /** Starts one more node, joining through the first; does not wait for the ring to settle. */
    ChordDht add() {
        return add("node-" + next++ + ":6070");
    }

    /** {@link #add()} at {@code address} (in-process only): a crashed node's address starts it again, empty. */
    ChordDht add(String address) {
        return add(address, nodes.isEmpty() ? "" : nodes.get(0).self().address());
    }

    /** A node at {@code address} joining through {@code bootstrap}, or, with an empty one, configured as a founder. */
    ChordDht add(String address, String bootstrap) {
        Config config = base;
        if (!bootstrap.isEmpty()) {
            config = config.with(NodeOptions.OVERLAY_BOOTSTRAP.name(), bootstrap);
        }
        ChordDht node = tcp
                ? ChordDht.start(config.with(NodeOptions.OVERLAY_ADDRESS.name(), "127.0.0.1:0"), clock, DhtContract.ADD_CONTACT)
                : ChordDht.start(network.transport(address, OverlaySettings.from(config)), config, clock, DhtContract.ADD_CONTACT);
        nodes.add(node);
        return node;
    }

    static Ring of(int size, Clock clock) {
        return of(size, clock, false);
    }

    /** A ring of {@code size} nodes on TCP loopback sockets ({@code tcp}) or in-process, settled. */
    static Ring of(int size, Clock clock, boolean tcp) {
        var ring = new Ring(clock, tcp);
        for (int i = 0; i < size; i++) {
            ring.add();
        }
        ring.awaitSettled();
        return ring;
    }

    /** The live nodes in id order. */
    List<ChordDht> byId() {
        return nodes.stream().sorted(Comparator.comparing(n -> n.self().id())).toList();
    }

    /** The node a brute-force look at all ids says owns {@code key}. */
    NodeRef owner(Id key) {
        List<ChordDht> sorted = byId();
        return sorted.stream().map(ChordDht::self).filter(n -> n.id().compareTo(key) >= 0).findFirst()
                .orElse(sorted.get(0).self());
    }

    /** Waits until every node's successor and predecessor are its true neighbours. */
    void awaitSettled() {
        awaitTrue("ring of " + nodes.size() + " settled", this::settled, Duration.ofSeconds(30));
    }

    private boolean settled() {
        List<ChordDht> sorted = byId();
        int n = sorted.size();
        for (int i = 0; i < n; i++) {
            var neighbours = get(neighbours(sorted.get(i)));
            NodeRef successor = sorted.get((i + 1) % n).self();
            NodeRef predecessor = sorted.get((i + n - 1) % n).self();
            if (n > 1 && (neighbours.successors().isEmpty() || !neighbours.successors().get(0).equals(successor)
                    || !predecessor.equals(neighbours.predecessor()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits until every place of every node knows its range and the ranges add up to the ring
     * (no gap, no overlap: each place's predecessor is the place before it), and every node
     * settled; each node takes {@code places} places.
     */
    void awaitWholeRing(int places) {
        awaitTrue("the places of " + nodes.size() + " nodes own the whole ring", () -> {
            long sum = 0;
            for (ChordDht node : nodes) {
                for (ChordNode place : places(node)) {
                    long ppm = place.table().rangePpm(); // readable from any thread
                    if (ppm < 0) {
                        return false;
                    }
                    sum += ppm;
                }
            }
            return sum <= Id.PPM && sum > Id.PPM - (long) nodes.size() * places;
        }, Duration.ofSeconds(60));
        nodes.forEach(n -> get(n.settled()));
    }

    /** What {@code node} knows of its place: its predecessor and successor list, nearest first. */
    static CompletionStage<Neighbours> neighbours(ChordDht node) {
        return read(node, n -> new Neighbours(n.table().predecessor(), n.table().successors()));
    }

    /** {@code node}'s finger half the ring away: the last one fix-fingers reaches in a round. */
    static CompletionStage<NodeRef> farFinger(ChordDht node) {
        return read(node, n -> n.table().finger(Id.BITS - 1));
    }

    /** Whether {@code node} holds a copy of {@code aor}'s record (as owner or replica). */
    static CompletionStage<Boolean> holds(ChordDht node, String aor) {
        return holds(node, List.of(aor)).thenApply(held -> held == 1);
    }

    /** How many of {@code aors} {@code node}'s own store holds, counted in one step of its loop. */
    static CompletionStage<Integer> holds(ChordDht node, Collection<String> aors) {
        return read(node, n -> (int) aors.stream().filter(aor -> n.store().record(Id.hash(aor)) != null).count());
    }

    /** Finds the owner of {@code key} from {@code node}, counted in its lookup metrics. */
    static CompletionStage<Route> lookup(ChordDht node, Id key) {
        ChordNode n = first(node);
        return n.ringLoop().call(() -> n.lookup(key, false), n.self().toString());
    }

    /**
     * Waits until every node's view of the ring names all the nodes and maps keys: operations go
     * in one hop from then on.
     */
    void awaitViews() {
        awaitTrue("every node's view whole", () -> nodes.stream().allMatch(n -> get(read(n,
                p -> p.view().size() == nodes.size() && p.view().owner(Id.hash("any")) != null))),
                Duration.ofSeconds(30));
    }

    /** The first place of {@code node}: the node as a single-place ring knows it. */
    static ChordNode first(ChordDht node) {
        return node.node;
    }

    /** Every place of {@code node}, the first first; their state is read on the node's loop. */
    static List<ChordNode> places(ChordDht node) {
        return node.places.places();
    }

    /** Reads {@code node}'s state on its loop, where the state lives. */
    static <T> CompletionStage<T> read(ChordDht node, Function<ChordNode, T> read) {
        ChordNode n = first(node);
        return n.ringLoop().call(() -> CompletableFuture.completedFuture(read.apply(n)), n.self().toString());
    }

    static <T> T get(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("stage failed or hung: " + e, e);
        }
    }

    /** Polls {@code condition} until it holds or {@code patience} passes. */
    static void awaitTrue(String what, BooleanSupplier condition, Duration patience) {
        long end = System.nanoTime() + patience.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("waited " + patience + " for: " + what);
            }
            try {
                Thread.sleep(20); // polling a condition, not waiting a fixed time
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    @Override
    public void close() {
        for (ChordDht node : nodes) {
            node.close();
        }
        network.close();
    }
}
