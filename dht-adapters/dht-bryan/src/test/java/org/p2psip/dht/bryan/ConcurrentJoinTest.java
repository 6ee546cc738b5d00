package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.FingerTable;

/**
 * Peers joining while others still join, as a ring is built (the overlay simulator starts 20 a
 * second), in virtual time so that every peer's state can be read between two events: no two
 * peers take themselves for the owner of one key for long, every peer joins, the ring closes, and
 * a record written before the joins is still read afterwards. While peers join, a successor link
 * may briefly skip a newcomer and two peers then serve the keys between; once an admitting peer
 * handed its records to newcomers it had not taken as its predecessor, 40 peers of this run
 * served keys another served too for up to 61 s (now at most 10 s).
 */
class ConcurrentJoinTest {

    private static final int PEERS = 40;
    private static final int AORS = 60;
    private static final long MS = 1_000_000L;
    private static final long JOIN_SPACING = 50 * MS;
    private static final long PATIENCE = 180_000 * MS;
    /** A few stabilisation rounds of the defaults (1 s, backing off to 4 s while nothing changes). */
    private static final long LONGEST_OVERLAP = 20_000 * MS;

    private final VirtualPeerNetwork network = new VirtualPeerNetwork(1);
    private final List<BryanDht> peers = new ArrayList<>();
    private final List<BryanDht> joined = new ArrayList<>();
    /** When each pair of owners (owner, the owner before it) began to own one key, while they still do. */
    private final Map<String, Long> overlapSince = new HashMap<>();

    @Test
    void peersJoiningTogetherNeverOwnOneKeyTwiceAndKeepEveryRecord() {
        var random = new SplittableRandom(1);
        start("");
        runChecking(JOIN_SPACING);
        List<CompletableFuture<Boolean>> writes = new ArrayList<>();
        for (int i = 0; i < AORS; i++) {
            writes.add(peers.get(0).put(oneBinding(aor(i))).toCompletableFuture());
        }
        runChecking(1000 * MS);
        writes.forEach(w -> assertTrue(w.getNow(false), "a write to the founder alone is acknowledged"));
        for (int i = 1; i < PEERS; i++) {
            start(joined.get(random.nextInt(joined.size())).self().address());
            runChecking(JOIN_SPACING);
        }
        long waited = 0;
        while (!stable() && waited < PATIENCE) {
            runChecking(100 * MS);
            waited += 100 * MS;
        }
        assertEquals(PEERS, joined.size(), "peers joined within " + PATIENCE / MS + " ms of the last start");
        assertTrue(stable(), "every peer names its true predecessor and successor within " + PATIENCE / MS + " ms");
        for (int i = 0; i < AORS; i++) {
            var read = peers.get(random.nextInt(PEERS)).get(aor(i)).toCompletableFuture();
            network.time().runFor(10_000 * MS);
            assertTrue(read.isDone() && read.join().exists(), aor(i) + " written before the joins is read after them");
        }
    }

    private void start(String bootstrap) {
        String address = "10.0.0." + peers.size() + ":5060";
        Config config = Config.empty().with("p2psip.overlay.secret", Peers.SECRET)
                .with("p2psip.bryan.bootstrap", bootstrap).with("p2psip.bryan.places", "1");
        var clock = network.time().clock();
        BryanDht peer = PeerInsides.start(network.link(address), config, clock, network.loop());
        peers.add(peer);
        peer.joined().thenRun(() -> joined.add(peer));
    }

    /** Runs the peers for {@code nanos}, checking after every 10 ms that no two of them own one key for long. */
    private void runChecking(long nanos) {
        for (long run = 0; run < nanos; run += 10 * MS) {
            network.time().runFor(10 * MS);
            noKeyOwnedTwiceForLong();
        }
    }

    /**
     * A peer on the ring owns (predecessor, self] (one not on it answers nothing); when one owner's
     * range holds the id of another, both answer for the keys between, each from its own store.
     * Comparing each owner with the owner before it suffices: a range holding any other owner's id
     * holds that one's. Fails when one pair has done so for longer than {@link #LONGEST_OVERLAP}.
     */
    private void noKeyOwnedTwiceForLong() {
        List<BryanPeer> owners = peers.stream().map(PeerInsides::peer)
                .filter(p -> p.joined().isDone() && p.links().table().owns(p.self().id()))
                .sorted(Comparator.comparing(p -> p.self().id())).toList();
        var now = new HashSet<String>();
        for (int i = 0; i < owners.size() && owners.size() > 1; i++) {
            BryanPeer owner = owners.get(i);
            BryanPeer before = owners.get((i + owners.size() - 1) % owners.size());
            FingerTable table = owner.links().table();
            if (!table.owns(before.self().id())) {
                continue;
            }
            String pair = owner.self() + " (predecessor " + table.predecessor() + ") owns the id of " + before.self()
                    + ", which owns it too (predecessor " + before.links().table().predecessor() + ")";
            now.add(pair);
            long since = overlapSince.computeIfAbsent(pair, p -> network.time().nanos());
            if (network.time().nanos() - since > LONGEST_OVERLAP) {
                fail("from " + since / MS + " ms to " + network.time().nanos() / MS + " ms " + pair);
            }
        }
        overlapSince.keySet().retainAll(now);
    }

    /** Whether every peer has joined and names its true predecessor and successor. */
    private boolean stable() {
        List<BryanPeer> sorted = peers.stream().map(PeerInsides::peer).sorted(Comparator.comparing(p -> p.self().id()))
                .toList();
        for (int i = 0; i < sorted.size(); i++) {
            FingerTable table = sorted.get(i).links().table();
            if (!sorted.get(i).joined().isDone()
                    || !table.successor().equals(sorted.get((i + 1) % sorted.size()).self())
                    || !sorted.get((i + sorted.size() - 1) % sorted.size()).self().equals(table.predecessor())) {
                return false;
            }
        }
        return true;
    }

    private static String aor(int i) {
        return "sip:user" + i + "@example.com";
    }

    private BindingSet oneBinding(String aor) {
        long now = network.time().clock().millis();
        String contact = aor.replace("example.com", "10.1.0.1");
        return new BindingSet(aor, 0, now + 86_400_000L,
                List.of(new Binding(aor, contact, now + 3_600_000L, 1000, "call-" + aor, 1, List.of(), "", 0)));
    }
}
