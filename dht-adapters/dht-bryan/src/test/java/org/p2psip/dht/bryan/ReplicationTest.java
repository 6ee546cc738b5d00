package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.Id;

/**
 * A write is acknowledged only once its replicas took it, also when many writes share one copy
 * REGISTER: every acknowledged write is on its responsible peer and its two successors, and a
 * burst of writes needs far fewer copy REGISTERs than it has writes.
 */
class ReplicationTest extends RingTest {

    private static final int WRITES = 300;
    private static final int REPLICAS = 2;
    @Test
    void aBurstOfWritesIsOnEveryReplicaWhenAcknowledgedAndSharesCopyRegisters() throws Exception {
        ring = Peers.ring(4, Clock.systemUTC());
        ring.awaitFullLists(); // a short list has a write copied to a peer that is no replica
        long batchesBefore = batches();
        var writes = new ArrayList<CompletableFuture<Boolean>>();
        for (int i = 0; i < WRITES; i++) {
            writes.add(ring.live.get(i % ring.live.size()).put(oneBinding("sip:burst" + i + "@example.com", "10.0.0.3")).toCompletableFuture());
        }
        for (int i = 0; i < WRITES; i++) {
            assertTrue(writes.get(i).get(20, TimeUnit.SECONDS), "write " + i + " refused");
            String aor = "sip:burst" + i + "@example.com";
            for (BryanDht holder : responsibleAndReplicas(aor)) {
                // acknowledged means copied: no waiting here
                assertTrue(Peers.holds(holder, aor), aor + " acknowledged but not on " + holder.self());
            }
        }
        long batches = batches() - batchesBefore;
        assertTrue(batches < WRITES, "a burst of " + WRITES + " writes took " + batches
                + " copy REGISTERs (one per write per replica would be " + WRITES * REPLICAS + ")");
    }

    @Test
    void aRoutedWritesCopyToItsAskerTravelsInTheAnswerAndSurvivesTheOwner() throws Exception {
        // a short operation deadline: a peer takes itself for alone after twice that of silence
        ring = Peers.ring(2, Clock.systemUTC(), Map.of("p2psip.bryan.operation-timeout", "2s"));
        BryanDht asker = ring.live.get(0);
        BryanDht owner = ring.live.get(1);
        List<String> owned = ownedBy(owner, "carried", 20);
        long copyRegisters = owner.metrics().getOrDefault("bryan.replica.batches", 0L);
        for (String aor : owned) {
            assertTrue(asker.put(oneBinding(aor, "10.0.0.4")).toCompletableFuture().get(20, TimeUnit.SECONDS));
            assertTrue(Peers.holds(asker, aor), aor + " acknowledged but its copy is not on the asker");
        }
        assertEquals(owned.size(), owner.metrics().get("bryan.copies.carried"));
        assertEquals(copyRegisters, owner.metrics().getOrDefault("bryan.replica.batches", 0L),
                "the owner sent copy REGISTERs for writes whose copies rode in the answers");
        ring.crash(owner);
        Peers.await(() -> Peers.neighbours(asker).successors().isEmpty(), "the asker to take itself for alone");
        for (String aor : owned) {
            var found = asker.get(aor).toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertEquals(aor.substring(0, aor.indexOf('@') + 1) + "10.0.0.4", found.bindings().get(0).contact(),
                    aor + " lost with its owner");
        }
    }

    @Test
    void aWriteWhoseReplicaDidNotTakeItsCopyIsNotAcknowledged() throws Exception {
        ring = Peers.ring(2, Clock.systemUTC());
        BryanDht owner = ring.live.get(0);
        BryanDht replica = ring.live.get(1);
        String aor = ownedBy(owner, "unreplicated", 1).get(0);
        ring.network.loseCopies(true);
        var failed = assertThrows(ExecutionException.class,
                () -> owner.put(oneBinding(aor, "10.0.0.6")).toCompletableFuture().get(20, TimeUnit.SECONDS));
        assertTrue(failed.getCause() instanceof DhtException e && e.reason() == DhtException.Reason.UNREACHABLE, failed.toString());
        assertFalse(Peers.holds(replica, aor));
        assertEquals(1L, owner.metrics().get("bryan.writes.unreplicated"));
        ring.network.loseCopies(false);
        // the control case: the same write with its copy delivered is acknowledged and on the replica
        var current = owner.get(aor).toCompletableFuture().get(20, TimeUnit.SECONDS);
        assertTrue(owner.put(current.next(oneBinding(aor, "10.0.0.7").bindings(), current.retainUntil()))
                .toCompletableFuture().get(20, TimeUnit.SECONDS));
        assertTrue(Peers.holds(replica, aor));
    }

    @Test
    void aGetForASilentPeersResourceIsAnsweredFromItsSuccessorsCopy() throws Exception {
        ring = Peers.ring(4, Clock.systemUTC(), Map.of("p2psip.bryan.timeouts-before-failure", "1000"));
        ring.awaitFullLists();
        BryanDht owner = ring.live.get(0);
        List<BryanDht> clockwise = clockwiseAfter(owner);
        String aor = ownedBy(owner, "around", 1).get(0);
        assertTrue(owner.put(oneBinding(aor, "10.0.0.9")).toCompletableFuture().get(20, TimeUnit.SECONDS));
        ring.crash(owner);
        // its predecessor sends the get to it first, then, naming it, to its successor
        BryanDht reader = clockwise.get(2);
        var found = reader.get(aor).toCompletableFuture().get(20, TimeUnit.SECONDS);
        assertEquals(aor.substring(0, aor.indexOf('@') + 1) + "10.0.0.9", found.bindings().get(0).contact());
        assertTrue(clockwise.get(0).metrics().getOrDefault("bryan.gets.around", 0L) >= 1,
                "the successor did not answer for its silent predecessor");
    }

    /** The other live peers in ring order after {@code peer}. */
    private List<BryanDht> clockwiseAfter(BryanDht peer) {
        Id from = peer.self().id();
        return ring.live.stream().filter(p -> p != peer).sorted(Comparator.comparing(p -> from.distanceTo(p.self().id())))
                .toList();
    }

    /** The first {@code count} AORs named {@code prefix}N whose responsible peer is {@code owner}. */
    private List<String> ownedBy(BryanDht owner, String prefix, int count) {
        var owned = new ArrayList<String>();
        for (int i = 0; owned.size() < count; i++) {
            String aor = "sip:" + prefix + i + "@example.com";
            if (ring.responsibleFor(aor) == owner) {
                owned.add(aor);
            }
        }
        return owned;
    }

    /** The responsible peer of aor and the next REPLICAS peers clockwise. */
    private List<BryanDht> responsibleAndReplicas(String aor) {
        Id key = Id.hash(aor);
        List<BryanDht> clockwise = ring.live.stream().sorted(Comparator.comparing(p -> key.distanceTo(p.self().id()))).toList();
        return clockwise.subList(0, Math.min(REPLICAS + 1, clockwise.size()));
    }

    private long batches() {
        return ring.live.stream().mapToLong(p -> p.metrics().getOrDefault("bryan.replica.batches", 0L)).sum();
    }
}
