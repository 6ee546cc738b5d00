package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.map.IMap;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;

/**
 * Three members in one JVM holding 10,000 AORs; one is terminated without warning (no hand-over,
 * as a kill -9 would leave it); the synchronous backups on the survivors must hold every binding.
 */
class FailoverTest {

    private static final int AORS = 10_000;
    private static final int WINDOW = 500;
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private final Clock clock = Clock.systemUTC();
    private final List<HazelcastDht> members = new ArrayList<>();

    @AfterEach
    void closeAll() {
        members.forEach(HazelcastDht::close);
    }

    @Test
    void everyAcknowledgedBindingIsReadableThroughTheSurvivorsAfterAMemberIsTerminated() throws Exception {
        String secret = "failover-" + UUID.randomUUID();
        HazelcastDht a = start(secret, "");
        HazelcastDht b = start(secret, TestCluster.address(a));
        HazelcastDht c = start(secret, TestCluster.address(a));
        Await.until(PATIENCE, () -> clusterSize(a) == 3 && clusterSize(c) == 3
                && a.member().getPartitionService().isClusterSafe(), () -> "members: " + clusterSize(a));

        writeAll(List.of(a, b, c));
        long ownedByVictim = c.metrics().get("hazelcast.owned-entries");
        assertTrue(ownedByVictim > AORS / 10, "the member to terminate owns a share of the AORs, got " + ownedByVictim);

        c.member().getLifecycleService().terminate();
        Await.until(PATIENCE, () -> clusterSize(a) == 2 && clusterSize(b) == 2
                && a.member().getPartitionService().isClusterSafe(), () -> "survivors see " + clusterSize(a) + " and " + clusterSize(b));

        readAll(List.of(a, b));
        assertBackupsKeptTheTimeToLive(a);
    }

    /** The processor ran on the backups too: entries promoted from them still expire with their record. */
    private static void assertBackupsKeptTheTimeToLive(HazelcastDht survivor) {
        IMap<String, byte[]> map = survivor.member().getMap(HazelcastOptions.MAP.defaultValue());
        for (int i = 0; i < 60; i++) {
            long ttl = map.getEntryView(aor(i)).getTtl();
            assertTrue(ttl > 0 && ttl <= 86_400_000, aor(i) + " has a time-to-live of " + ttl + " ms after the failover");
        }
    }

    private HazelcastDht start(String secret, String members) {
        HazelcastDht dht = TestCluster.start(secret, members, clock);
        this.members.add(dht);
        return dht;
    }

    /** Writes through every member in turn, {@code WINDOW} operations in flight, as a busy front would. */
    private void writeAll(List<HazelcastDht> writers) throws Exception {
        for (int start = 0; start < AORS; start += WINDOW) {
            var puts = new ArrayList<CompletableFuture<Boolean>>(WINDOW);
            for (int i = start; i < Math.min(AORS, start + WINDOW); i++) {
                var set = new BindingSet(aor(i), 0, clock.millis() + 86_400_000, List.of(binding(i)));
                puts.add(writers.get(i % writers.size()).put(set).toCompletableFuture());
            }
            for (int i = 0; i < puts.size(); i++) {
                assertTrue(puts.get(i).get(PATIENCE.toSeconds(), TimeUnit.SECONDS), "put of " + aor(start + i) + " acknowledged");
            }
        }
    }

    private void readAll(List<HazelcastDht> readers) throws Exception {
        for (int start = 0; start < AORS; start += WINDOW) {
            var gets = new ArrayList<CompletableFuture<BindingSet>>(WINDOW);
            for (int i = start; i < Math.min(AORS, start + WINDOW); i++) {
                gets.add(readers.get(i % readers.size()).get(aor(i)).toCompletableFuture());
            }
            for (int i = 0; i < gets.size(); i++) {
                int n = start + i;
                BindingSet got = gets.get(i).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertEquals(1, got.version(), aor(n) + " lost after the member's termination: " + got);
                assertEquals(List.of(binding(n)), got.bindings(), aor(n));
            }
        }
    }

    private Binding binding(int i) {
        return new Binding(aor(i), "sip:user" + i + "@10.0." + (i / 250) + "." + (i % 250), 4_102_444_800_000L,
                Binding.Q_UNSPECIFIED, "call-" + i, 1, List.of(), "", 0);
    }

    private static String aor(int i) {
        return "sip:user" + i + "@example.com";
    }

    private static int clusterSize(HazelcastDht dht) {
        return dht.member().getLifecycleService().isRunning() ? dht.member().getCluster().getMembers().size() : 0;
    }
}
