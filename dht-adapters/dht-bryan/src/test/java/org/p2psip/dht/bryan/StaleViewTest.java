package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;

/**
 * Users' operations while the views of the overlay are stale, in virtual time, so that the peers
 * work as fast as on a quiet machine: a ring of eight is whole within a second, before a gossip
 * round (4 s) has told the views which members' places own their ranges, and two neighbouring
 * peers then crash. Views still name a member with none of its places, or a crashed one. A peer
 * whose view names the asker as a key's owner must route by its links (its successor owns the
 * key) rather than answer 480, and an asker whose view names itself must not take that path
 * again on every retry: each read through each live peer finds its record.
 */
class StaleViewTest {

    private static final long MS = 1_000_000L;
    private static final int PEERS = 8;
    private static final int AORS = 200;

    @Test
    void readsThroughEveryPeerFindTheirRecordsWhileViewsAreStaleAfterTwoCrashes() {
        boolean sawStale = false;
        for (long seed = 1; seed <= 4; seed++) {
            sawStale |= crashTwoAndReadThroughEveryPeer(seed);
        }
        assertTrue(sawStale, "some view named a live member with none of its places when the reads began:"
                + " the test would prove nothing");
    }

    /** Returns whether a view was stale when the reads began. */
    private boolean crashTwoAndReadThroughEveryPeer(long seed) {
        var network = new VirtualPeerNetwork(seed);
        var config = new Peers(network.time().clock());
        var ring = new ArrayList<BryanDht>();
        for (int i = 0; i < PEERS; i++) {
            Config c = config.config(i == 0 ? "" : "127.0.0.1:25200");
            ring.add(PeerInsides.start(network.link("127.0.0.1:" + (25200 + i)), c, network.time().clock(), network.loop()));
            network.time().runFor(5 * MS);
        }
        runUntil(network, () -> Peers.ownWholeRing(ring) && stable(ring), "seed " + seed + ": the ring to stabilise");
        var puts = new ArrayList<CompletableFuture<Boolean>>();
        for (int i = 0; i < AORS; i++) {
            puts.add(ring.get(i % PEERS).put(binding(network, i)).toCompletableFuture());
        }
        runUntil(network, () -> puts.stream().allMatch(CompletableFuture::isDone), "seed " + seed + ": the puts");
        assertTrue(puts.stream().allMatch(p -> !p.isCompletedExceptionally() && p.join()), "seed " + seed + ": every put acknowledged");

        List<BryanDht> sorted = ring.stream().sorted(Comparator.comparing(p -> p.self().id())).toList();
        for (BryanDht crashed : List.of(sorted.get(3), sorted.get(4))) {
            ring.remove(crashed);
            crashed.crash();
        }
        runUntil(network, () -> stable(ring), "seed " + seed + ": the ring to repair");
        boolean stale = ring.stream().anyMatch(p -> PeerInsides.peer(p).view().entries().stream().anyMatch(m -> m.places() == 0));
        for (BryanDht reader : ring) {
            var gets = new ArrayList<CompletableFuture<BindingSet>>();
            for (int i = 0; i < AORS; i++) {
                gets.add(reader.get(aor(i)).toCompletableFuture());
            }
            runUntil(network, () -> gets.stream().allMatch(CompletableFuture::isDone), "seed " + seed + ": the reads");
            for (int i = 0; i < AORS; i++) {
                var got = gets.get(i);
                assertTrue(!got.isCompletedExceptionally(), "seed " + seed + ": " + aor(i) + " read through "
                        + reader.self() + " failed: " + got.handle((r, e) -> e).join());
                assertEquals(1, got.join().bindings().size(), "seed " + seed + ": " + aor(i) + " through " + reader.self());
            }
        }
        ring.forEach(BryanDht::crash);
        return stale;
    }

    /** Runs the network's time until {@code done}, for at most two virtual minutes. */
    private static void runUntil(VirtualPeerNetwork network, BooleanSupplier done, String what) {
        for (int waited = 0; !done.getAsBoolean(); waited += 10) {
            assertTrue(waited < 120_000, "gave up waiting for " + what);
            network.time().runFor(10 * MS);
        }
    }

    /** Whether every peer has joined and names its true predecessor and successor. */
    private static boolean stable(List<BryanDht> ring) {
        List<BryanDht> sorted = ring.stream().sorted(Comparator.comparing(p -> p.self().id())).toList();
        for (int i = 0; i < sorted.size(); i++) {
            BryanPeer p = PeerInsides.peer(sorted.get(i));
            var table = p.links().table();
            if (!p.joined().isDone() || table.successors().isEmpty()
                    || !table.successors().get(0).equals(sorted.get((i + 1) % sorted.size()).self())
                    || !sorted.get((i + sorted.size() - 1) % sorted.size()).self().equals(table.predecessor())) {
                return false;
            }
        }
        return true;
    }

    private static String aor(int i) {
        return "sip:u" + i + "@example.com";
    }

    private static BindingSet binding(VirtualPeerNetwork network, int i) {
        long day = network.time().clock().millis() + TimeUnit.DAYS.toMillis(1);
        return new BindingSet(aor(i), 0, day, List.of(new Binding(aor(i), "sip:u" + i + "@10.0.0.1", day,
                Binding.Q_UNSPECIFIED, "call-" + i, 1, List.of(), "", 0)));
    }
}
