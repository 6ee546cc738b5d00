package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.bamboo.routing.NodeHandle;
import org.p2psip.dht.bamboo.storage.SharedEnvironment;
import org.p2psip.overlay.InProcessNetwork;
import org.p2psip.overlay.OverlaySettings;
import org.p2psip.testkit.SimulatedTime;

/**
 * Bamboo as the overlay simulator runs it: forty nodes on one {@link SimulatedTime} loop over an
 * {@link InProcessNetwork} with 20-80 ms per pair, all in one shared JE environment, on this
 * test's thread alone. Every wait is on a condition in virtual time, bounded.
 */
class SimulatedOverlayTest {

    private static final int NODES = 40;
    private static final int AORS = 100;
    private static final int ROUNDS = 5; // AORS * ROUNDS = 500 puts
    private static final int CRASHES = 3;
    private static final String SECRET = "simulation-secret";
    private static final long MS = 1_000_000;

    @TempDir
    Path dir;

    @Test
    void fortyNodesInVirtualTimeServeTheLastPutOfEveryRecordAndKeepItThroughCrashes() {
        Run run = simulate(7, dir.resolve("run"));
        assertEquals(AORS * ROUNDS, run.acknowledgedPuts(), "every put acknowledged");
        assertTrue(run.meanHops() > 0 && run.meanHops() < 3,
                "lookups among 40 nodes take about log16(40) hops, got a mean of " + run.meanHops());
    }

    @Test
    void theSameSeedGivesTheSameRunByteForByte() {
        Run first = simulate(11, dir.resolve("first"));
        Run second = simulate(11, dir.resolve("second"));
        assertEquals(first.fingerprint(), second.fingerprint(),
                "two runs of one seed must send the same bytes and count the same lookups at every node");
    }

    /** What a run leaves to compare: per node its bytes and counters, in node order, and the run's end time. */
    private record Run(List<String> fingerprint, long acknowledgedPuts, double meanHops) {
    }

    private Run simulate(long seed, Path envDir) {
        var time = new SimulatedTime();
        var network = new InProcessNetwork(time, time::nanos, seed);
        network.latency((from, to) -> pairLatencyNanos(seed, from, to));
        Random random = new Random(seed);
        Config base = Config.empty()
                .with(NodeOptions.OVERLAY_SECRET.name(), SECRET)
                .with(BambooOptions.JE_CACHE_BYTES.name(), String.valueOf(16L << 20));
        Clock clock = time.clock();
        try (var environment = SharedEnvironment.open(envDir, base)) {
            Set<Thread> threadsBefore = bambooThreads();
            List<String> addresses = new ArrayList<>();
            List<BambooDht> dhts = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                String address = "10.0." + (i / 200) + "." + (i % 200 + 1) + ":5060";
                Config config = base.with(NodeOptions.OVERLAY_BOOTSTRAP.name(), i == 0 ? "" : addresses.get(0));
                addresses.add(address);
                dhts.add(BambooDht.start(network.transport(address, OverlaySettings.withSecret(SECRET)), config, clock,
                        environment));
                time.runFor(100 * MS);
            }
            assertEquals(threadsBefore, bambooThreads(), "simulated nodes start no thread of their own");
            List<BambooDht> live = new ArrayList<>(dhts);
            runUntil(time, Duration.ofMinutes(2), () -> converged(time, live),
                    () -> "leaf sets did not converge within two virtual minutes");

            long retain = clock.millis() + Duration.ofHours(2).toMillis();
            List<BindingSet> last = new ArrayList<>();
            for (int i = 0; i < AORS; i++) {
                last.add(BindingSet.absent(aor(i)));
            }
            long acknowledged = 0;
            for (int round = 0; round < ROUNDS; round++) {
                List<CompletableFuture<Boolean>> puts = new ArrayList<>();
                List<BindingSet> proposed = new ArrayList<>();
                for (int i = 0; i < AORS; i++) {
                    var next = last.get(i).next(List.of(binding(i, round, retain)), retain);
                    proposed.add(next);
                    puts.add(live.get(random.nextInt(live.size())).put(next).toCompletableFuture());
                }
                runUntil(time, Duration.ofMinutes(1), () -> puts.stream().allMatch(CompletableFuture::isDone),
                        () -> "puts unanswered after a virtual minute");
                for (int i = 0; i < AORS; i++) {
                    assertTrue(puts.get(i).join(), "put of version " + (round + 1) + " of " + aor(i) + " is accepted");
                    last.set(i, proposed.get(i).stored());
                    acknowledged++;
                }
            }
            assertEveryLastPutIsRead(time, live, random, last, "after the puts");

            for (int c = 0; c < CRASHES; c++) {
                BambooDht victim = live.remove(1 + random.nextInt(live.size() - 1));
                network.silence(victim.node().handle().address()); // a host that vanished: peers time out
                victim.crash();
                time.runFor(Duration.ofSeconds(30).toNanos());
            }
            runUntil(time, Duration.ofMinutes(2), () -> converged(time, live),
                    () -> "leaf sets did not converge after the crashes");
            assertEveryLastPutIsRead(time, live, random, last, "after " + CRASHES + " crashes");

            List<String> fingerprint = new ArrayList<>();
            long lookups = 0;
            long hops = 0;
            for (int i = 0; i < NODES; i++) {
                var metrics = dhts.get(i).metrics();
                var traffic = network.traffic(addresses.get(i));
                lookups += metrics.getOrDefault("bamboo.lookups", 0L);
                hops += metrics.getOrDefault("bamboo.lookup.hops", 0L);
                fingerprint.add(addresses.get(i) + " sent=" + traffic.sent() + " received=" + traffic.received()
                        + " lookups=" + metrics.get("bamboo.lookups") + " hops=" + metrics.get("bamboo.lookup.hops")
                        + " writes=" + metrics.get("bamboo.storage.writes"));
            }
            fingerprint.add("virtual end " + time.nanos());
            live.forEach(BambooDht::close);
            runUntil(time, Duration.ofMinutes(1), () -> live.stream().allMatch(d -> d.node().stopped()
                    .toCompletableFuture().isDone()), () -> "closed nodes did not stop within a virtual minute");
            assertEquals(0, environment.openStores(), "every node closed its databases");
            return new Run(fingerprint, acknowledged, (double) hops / Math.max(1, lookups));
        }
    }

    private static void assertEveryLastPutIsRead(SimulatedTime time, List<BambooDht> live, Random random,
                                                 List<BindingSet> last, String when) {
        List<CompletableFuture<BindingSet>> gets = new ArrayList<>();
        for (int i = 0; i < AORS; i++) {
            gets.add(live.get(random.nextInt(live.size())).get(aor(i)).toCompletableFuture());
        }
        runUntil(time, Duration.ofMinutes(1), () -> gets.stream().allMatch(CompletableFuture::isDone),
                () -> "gets unanswered after a virtual minute " + when);
        for (int i = 0; i < AORS; i++) {
            BindingSet read = gets.get(i).join();
            assertEquals(last.get(i), read, "a get of " + aor(i) + " " + when + " returns its last put");
        }
    }

    private static Set<Thread> bambooThreads() {
        Set<Thread> threads = new HashSet<>();
        Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("bamboo-")).forEach(threads::add);
        return threads;
    }

    /** Whether every live node's leaf set holds exactly the nodes nearest it among the live ones. */
    private static boolean converged(SimulatedTime time, List<BambooDht> live) {
        List<NodeHandle> handles = live.stream().map(d -> d.node().handle()).toList();
        for (BambooDht dht : live) {
            NodeHandle self = dht.node().handle();
            Set<NodeHandle> expected = new HashSet<>();
            int side = BambooOptions.LEAF_SET_SIDE.defaultValue();
            List<NodeHandle> others = handles.stream().filter(h -> !h.equals(self)).toList();
            others.stream().sorted((a, b) -> self.id().distanceTo(a.id()).compareTo(self.id().distanceTo(b.id())))
                    .limit(side).forEach(expected::add);
            others.stream().sorted((a, b) -> a.id().distanceTo(self.id()).compareTo(b.id().distanceTo(self.id())))
                    .limit(side).forEach(expected::add);
            if (!new HashSet<>(now(time, dht.node().leafSetMembers())).equals(expected)) {
                return false;
            }
        }
        return true;
    }

    /** Runs the loop in steps of 100 virtual ms until {@code condition} holds, for at most {@code patience} of virtual time. */
    private static void runUntil(SimulatedTime time, Duration patience, BooleanSupplier condition, Supplier<String> failure) {
        long until = time.nanos() + patience.toNanos();
        while (!condition.getAsBoolean()) {
            if (time.nanos() >= until) {
                throw new AssertionError(failure.get());
            }
            time.runFor(100 * MS);
        }
    }

    /** A stage of work the node does on the loop at once (no network): runs what is ready, then reads it. */
    private static <T> T now(SimulatedTime time, CompletionStage<T> stage) {
        time.runFor(0);
        CompletableFuture<T> f = stage.toCompletableFuture();
        assertTrue(f.isDone(), "work without network completes once the loop ran what was ready");
        return f.join();
    }

    /** 20 to 80 ms, the same both ways and in every run of a seed. */
    private static long pairLatencyNanos(long seed, String from, String to) {
        String pair = from.compareTo(to) < 0 ? from + "|" + to : to + "|" + from;
        return (20 + Math.floorMod(pair.hashCode() * 31L + seed, 61L)) * MS;
    }

    private static Binding binding(int i, int round, long expiresAt) {
        return new Binding(aor(i), "sip:user" + i + "@192.0.2." + (i % 250) + ":5060;transport=tcp;round=" + round,
                expiresAt, 1000, "call-" + i + "-" + round + "@client.example.com", round + 1L,
                List.of("<sip:edge.example.com;lr>"), "<urn:uuid:00000000-0000-1000-8000-" + String.format("%012d", i) + ">", 1);
    }

    private static String aor(int i) {
        return "sip:user" + i + "@example.com";
    }
}
