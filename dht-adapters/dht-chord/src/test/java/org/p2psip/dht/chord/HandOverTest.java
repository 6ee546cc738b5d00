package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.NodeRef;

/**
 * A node hands a fresh predecessor its range only once it holds its own records. The places of a
 * restarted node join one beside the other, so a place meets a neighbour that joined a moment
 * before it and still waits for its own records; handed the empty range that neighbour holds so
 * far, the place would own its range with nothing in it, answer "absent" for every binding there
 * and take writes on empty records (a fault run saw an acknowledged binding read as absent through
 * another node 17 s after its owner's node was killed, and listed again only once rewritten).
 */
class HandOverTest {

    @Test
    void aNodeStillWaitingForItsOwnRecordsPutsOffAFreshPredecessor() {
        try (Ring ring = new Ring(Clock.systemUTC(), false)) {
            ChordDht first = ring.add();
            Ring.get(first.joined());
            // the first node's hand-over to the second travels slowly, and not at all once the
            // second is cut off: the second stays joined and waiting for its records
            ring.network.latency(Duration.ofMillis(300));
            ChordDht second = ring.add();
            Ring.get(second.joined());
            ring.network.silence(second.self().address());
            ChordNode waiting = Ring.places(second).get(0);
            assertTrue(onLoop(waiting, () -> waiting.table().awaitingRecords()),
                    "the second node got its records before it was cut off: the test proves nothing");
            long deferredBefore = waiting.counters().get("chord.joins.deferred");

            NodeRef newcomer = NodeRef.at("node-newcomer:6070");
            assertFalse(onLoop(waiting, () -> waiting.membership().notified(newcomer, true)),
                    "a node without its own records took a fresh predecessor and handed it an empty range");
            assertNull(onLoop(waiting, () -> waiting.table().predecessor()));
            assertEquals(deferredBefore + 1, waiting.counters().get("chord.joins.deferred"));

            ring.network.unsilence(second.self().address());
            ring.network.latency(Duration.ZERO);
            Ring.awaitTrue("the second node gets its records once it hears from the first again",
                    () -> !onLoop(waiting, () -> waiting.table().awaitingRecords()), Duration.ofSeconds(30));
            assertTrue(onLoop(waiting, () -> waiting.membership().notified(newcomer, true)),
                    "a node holding its records takes a fresh predecessor between it and the one before");
        }
    }

    private static <T> T onLoop(ChordNode place, java.util.function.Supplier<T> work) {
        return Ring.get(CompletableFuture.supplyAsync(work, place.loop()));
    }
}
