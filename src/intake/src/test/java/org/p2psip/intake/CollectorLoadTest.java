package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CollectorLoadTest {

    private final AtomicLong collectedMillis = new AtomicLong(5_000);
    private final CollectorLoad load = new CollectorLoad(collectedMillis::get);

    @Test
    void shortPausesAreNoOverload() {
        for (int i = 0; i < 30; i++) {
            collectedMillis.addAndGet(i % 5 == 0 ? 60 : 0); // a 60 ms young pause every half second
            load.sample();
            assertFalse(load.overloaded(), "12% of the time in pauses is ordinary");
        }
    }

    @Test
    void backToBackFullCollectionsAreAnOverloadUntilTheyStop() {
        for (int i = 0; i < 10; i++) {
            collectedMillis.addAndGet(50);
            load.sample();
        }
        assertTrue(load.overloaded(), "half of the last second in pauses");
        for (int i = 0; i < 10; i++) {
            load.sample();
        }
        assertFalse(load.overloaded(), "a second without pauses");
    }
}
