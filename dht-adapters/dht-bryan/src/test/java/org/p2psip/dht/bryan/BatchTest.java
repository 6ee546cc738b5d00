package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.BindingSet;

/**
 * The users' operations routed to one peer share REGISTERs under load (DHT-Op: batch) and each
 * still gets its own answer: a burst of writes and then of reads, all sent to one peer but owned
 * across the ring, all succeed, are found on their responsible peer, and took far fewer routed
 * REGISTERs than operations.
 */
class BatchTest extends RingTest {

    private static final int WRITES = 400;

    @Test
    void aBurstOfRoutedWritesAndReadsSharesRegistersAndEachGetsItsOwnAnswer() throws Exception {
        ring = Peers.ring(3, Clock.systemUTC());
        BryanDht entry = ring.live.get(0);
        var writes = new ArrayList<CompletableFuture<Boolean>>();
        for (int i = 0; i < WRITES; i++) {
            writes.add(entry.put(oneBinding(aor(i), "10.0.0." + (i % 250))).toCompletableFuture());
        }
        int routed = 0;
        for (int i = 0; i < WRITES; i++) {
            assertTrue(writes.get(i).get(20, TimeUnit.SECONDS), "write " + i + " refused");
            BryanDht owner = ring.responsibleFor(aor(i));
            assertTrue(Peers.holds(owner, aor(i)), aor(i) + " acknowledged but not on its peer " + owner.self());
            routed += owner == entry ? 0 : 1;
        }
        var reads = new ArrayList<CompletableFuture<BindingSet>>();
        for (int i = 0; i < WRITES; i++) {
            reads.add(entry.get(aor(i)).toCompletableFuture());
        }
        for (int i = 0; i < WRITES; i++) {
            BindingSet read = reads.get(i).get(20, TimeUnit.SECONDS);
            assertEquals(List.of("sip:user" + i + "@10.0.0." + (i % 250)),
                    read.bindings().stream().map(b -> b.contact()).toList(), "the answer of read " + i);
        }
        long batched = entry.metrics().getOrDefault("bryan.batched.ops", 0L);
        long batches = entry.metrics().getOrDefault("bryan.batches.out", 0L);
        assertTrue(routed > WRITES / 4, "the burst should be routed in part: " + routed);
        assertTrue(batches > 0 && batched > 2 * batches, batched + " operations in " + batches + " batches");
        assertTrue(batched > routed, batched + " of " + 2 * routed + " routed operations went in batches");
    }

    private static String aor(int i) {
        return "sip:user" + i + "@example.com";
    }
}
