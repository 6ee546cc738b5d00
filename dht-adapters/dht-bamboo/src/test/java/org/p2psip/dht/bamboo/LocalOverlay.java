package org.p2psip.dht.bamboo;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.p2psip.dht.contract.DhtContract;
import org.p2psip.config.Config;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.routing.NodeHandle;
import org.p2psip.dht.bamboo.wire.TransportNetwork;
import org.p2psip.overlay.InProcessNetwork;
import org.p2psip.overlay.OverlaySettings;
import org.p2psip.dht.bamboo.routing.Pastry;

/**
 * Many Bamboo nodes in this JVM on the overlay's {@link InProcessNetwork} (messages go through
 * {@link TransportNetwork} and the codec as on TCP), each with its own JE directory, for tests.
 */
final class LocalOverlay implements AutoCloseable {

    final InProcessNetwork network = new InProcessNetwork(2);
    final List<BambooNode> nodes = new ArrayList<>();
    private final Map<BambooNode, TransportNetwork> transports = new HashMap<>();
    private static final String SECRET = "test-overlay-secret";
    private final Path dir;
    private final Clock clock;
    private final Config config;
    private final Random random;

    LocalOverlay(Path dir, Clock clock, long seed, Config config) {
        this.dir = dir;
        this.clock = clock;
        this.random = new Random(seed);
        this.config = config;
    }

    /** Periods short enough for tests to see maintenance work in seconds. */
    static Config fastConfig() {
        return Config.empty()
                .with(BambooOptions.LEAF_SET_PERIOD.name(), "250ms")
                .with(BambooOptions.TABLE_PERIOD.name(), "500ms")
                .with(BambooOptions.REPAIR_PERIOD.name(), "10m")
                .with(BambooOptions.MIN_TIMEOUT.name(), "100ms")
                .with(BambooOptions.MAX_TIMEOUT.name(), "1s")
                .with(BambooOptions.DEADLINE.name(), "30s")
                .with(BambooOptions.STORAGE_FSYNC.name(), "false");
    }

    /** Starts a node with a fresh id and joins it through the first node. */
    BambooNode add() {
        var handle = new NodeHandle(Id.random(random), "node-" + nodes.size() + "-" + random.nextInt(1_000_000));
        return start(handle);
    }

    /** Starts a node as {@code handle} on that handle's directory (a restart if it ran before). */
    BambooNode start(NodeHandle handle) {
        var transport = new TransportNetwork(network.transport(handle.address(), OverlaySettings.withSecret(SECRET)));
        BambooNode node = BambooNode.start(handle, config, transport, dir.resolve(handle.address()), clock, DhtContract.ADD_CONTACT);
        transports.put(node, transport);
        String bootstrap = nodes.isEmpty() ? "" : nodes.get(0).handle().address();
        nodes.add(node);
        await(node.join(bootstrap).toCompletableFuture());
        return node;
    }

    /** Stops a node without a word to the others: no hand-over, its address refuses from now on. */
    void kill(BambooNode node) {
        nodes.remove(node);
        node.abort();
        transports.remove(node).close();
    }

    /** Stops a node as a crashed host stops: requests to it are never answered and time out. Its address is not reused. */
    void crash(BambooNode node) {
        network.silence(node.handle().address());
        nodes.remove(node);
        node.abort(); // its transport stays in the network, swallowing frames, until the overlay closes
    }

    /** Closes a node as an operator does: it hands its keys over, then leaves. */
    void leave(BambooNode node) {
        nodes.remove(node);
        node.close();
        transports.remove(node).close();
    }

    /** Waits until every node's leaf set holds exactly the nodes nearest it among those running. */
    void awaitConverged(Duration patience) {
        eventually(patience, () -> nodes.stream().allMatch(this::hasTrueLeafSet),
                () -> "leaf sets did not converge: " + nodes.stream().filter(n -> !hasTrueLeafSet(n))
                        .map(n -> n.handle() + " has " + await(n.leafSetMembers().toCompletableFuture())
                                + " expected " + trueLeafSet(n.handle())).toList());
    }

    /** The running node nearest {@code key}: its root by definition. */
    NodeHandle closest(Id key) {
        NodeHandle best = null;
        for (BambooNode n : nodes) {
            if (best == null || Pastry.closer(key, n.handle().id(), best.id())) {
                best = n.handle();
            }
        }
        return best;
    }

    BambooDht dht(BambooNode node, AutoCloseable resources) {
        return new BambooDht(node, SECRET, clock, resources);
    }

    @Override
    public void close() {
        List.copyOf(nodes).forEach(this::kill);
        transports.values().forEach(TransportNetwork::close);
        network.close();
    }

    private boolean hasTrueLeafSet(BambooNode node) {
        return new HashSet<>(await(node.leafSetMembers().toCompletableFuture())).equals(trueLeafSet(node.handle()));
    }

    private Set<NodeHandle> trueLeafSet(NodeHandle self) {
        int side = config.get(BambooOptions.LEAF_SET_SIDE);
        List<NodeHandle> others = nodes.stream().map(BambooNode::handle).filter(h -> !h.equals(self)).toList();
        Set<NodeHandle> expected = new HashSet<>();
        others.stream().sorted(Comparator.comparing(h -> self.id().distanceTo(h.id()))).limit(side).forEach(expected::add);
        others.stream().sorted(Comparator.comparing(h -> h.id().distanceTo(self.id()))).limit(side).forEach(expected::add);
        return expected;
    }

    static void eventually(Duration patience, BooleanSupplier condition, Supplier<String> failure) {
        eventually(patience, Duration.ofMillis(50), condition, failure);
    }

    /** As above, checking every {@code every}: for conditions that are costly to check. */
    static void eventually(Duration patience, Duration every, BooleanSupplier condition, Supplier<String> failure) {
        long until = System.nanoTime() + patience.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError(failure.get());
            }
            try {
                Thread.sleep(every.toMillis()); // polling a condition with a deadline, not waiting for time to pass
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    static <T> T await(java.util.concurrent.CompletableFuture<T> f) {
        try {
            return f.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("operation failed or hung: " + e, e);
        }
    }
}
