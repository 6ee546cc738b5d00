package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.OwnerRules;

/**
 * placed(), which the servlet's health probe waits for: the first peer at once, a newcomer only
 * once it serves its range (it has a predecessor), a peer whose bootstrap never answers never.
 */
class PlacedTest extends RingTest {

    @Test
    void theFirstPeerAtOnceANewcomerOnceItHasAPredecessor() throws Exception {
        ring = new Peers(Clock.systemUTC());
        BryanDht first = ring.add(25300);
        first.placed().toCompletableFuture().get(10, TimeUnit.SECONDS);

        BryanDht newcomer = ring.add(25301);
        newcomer.placed().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertTrue(newcomer.joined().toCompletableFuture().isDone());
        assertNotNull(Peers.neighbours(newcomer).predecessor(), "placed without a predecessor");
    }

    @Test
    void aPeerThatCannotJoinIsNeverPlaced() throws Exception {
        ring = new Peers(Clock.systemUTC());
        BryanDht lonely = PeerInsides.start(ring.network.link("127.0.0.1:25310"), ring.config("127.0.0.1:25319"),
                Clock.systemUTC(), OwnerRules.NONE);
        ring.live.add(lonely);
        // its join REGISTERs go nowhere; wait until it has tried and given up on several
        Peers.await(() -> lonely.metrics().getOrDefault("bryan.requests.out", 0L) >= 3, "three join attempts");
        assertFalse(lonely.joined().toCompletableFuture().isDone());
        assertFalse(lonely.placed().toCompletableFuture().isDone(), "placed without ever joining");
    }
}
