package org.p2psip.dht.bamboo.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.Id;

class RttEstimatorTest {

    private static final Duration FLOOR = Duration.ofMillis(50);
    private static final Duration CEILING = Duration.ofSeconds(2);

    @Test
    void beforeAnyRoundTripEveryPeerGetsTheCeiling() {
        assertEquals(CEILING, new RttEstimator(FLOOR, CEILING).timeout(Id.hash("never")));
    }

    @Test
    void aPeerNeverMeasuredGetsTheTimeoutOfAllPeersTogetherNotTheCeiling() {
        var rtt = new RttEstimator(FLOOR, CEILING);
        for (int i = 0; i < 50; i++) {
            rtt.observe(Id.hash("peer" + i), Duration.ofMillis(100 + 4 * i)); // 100 to 296 ms
        }
        Duration guess = rtt.timeout(Id.hash("stranger"));
        assertTrue(guess.compareTo(Duration.ofMillis(296)) > 0 && guess.compareTo(CEILING) < 0,
                "above the round trips seen and below the ceiling, got " + guess);
    }

    @Test
    void aStrangerThatTimedOutWaitsTwiceAsLongNextTime() {
        var rtt = new RttEstimator(FLOOR, CEILING);
        rtt.observe(Id.hash("peer"), Duration.ofMillis(100));
        Id stranger = Id.hash("stranger");
        Duration first = rtt.timeout(stranger);
        rtt.timedOut(stranger);
        assertEquals(first.multipliedBy(2), rtt.timeout(stranger), "the stranger's timeout backs off as a measured peer's does");
    }
}
