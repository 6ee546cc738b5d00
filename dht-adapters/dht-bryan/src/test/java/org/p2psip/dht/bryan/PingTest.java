package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * The ping a user's timeout sends to a far peer (Membership.suspect) is answered and tells that
 * peer nothing: a peer without a predecessor does not take the pinging peer for one, as it would
 * on the predecessor probe, a REGISTER naming links, which a peer named in none takes for a join.
 */
class PingTest extends RingTest {

    @Test
    void aPeerWithoutPredecessorAnswersAPingAndDoesNotTakeTheAskerForItsPredecessor() throws Exception {
        ring = Peers.ring(4, Clock.systemUTC());
        BryanDht asker = ring.live.get(0);
        Id from = asker.self().id();
        List<BryanDht> clockwise = ring.live.stream().filter(p -> p != asker)
                .sorted(Comparator.comparing(p -> from.distanceTo(p.self().id()))).toList();
        BryanDht far = clockwise.get(1); // neither the asker's successor nor its predecessor
        long admitted = far.metrics().getOrDefault("bryan.admitted", 0L);
        NodeRef target = far.self();
        // on the far peer's loop, then at once the ping: its predecessor's next stabilisation is 100 ms away
        CompletableFuture<?> answered = Peers.read(asker, peer -> {
            Peers.read(far, f -> {
                f.links().table().predecessor(null);
                return null;
            });
            return peer.ring().ping(target);
        });
        answered.get(10, TimeUnit.SECONDS);
        assertNotEquals(asker.self(), Peers.neighbours(far).predecessor(), "the pinged peer took the asker for its predecessor");
        assertEquals(admitted, far.metrics().getOrDefault("bryan.admitted", 0L), "the ping was admitted as a join");
    }
}
