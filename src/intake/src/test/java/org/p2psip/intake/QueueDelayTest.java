package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class QueueDelayTest {

    private static final long MS = 1_000_000;
    private final QueueDelay delay = new QueueDelay(100 * MS);

    @Test
    void aCollectorPauseIsNoOverload() {
        // a 300 ms pause: the datagrams queued before it waited long, the next ones did not
        assertFalse(delay.late(300 * MS, 1000 * MS));
        assertFalse(delay.late(290 * MS, 1001 * MS));
        assertFalse(delay.late(2 * MS, 1002 * MS));
        assertFalse(delay.late(150 * MS, 1150 * MS), "a late datagram after a young one starts the interval again");
        assertFalse(delay.shedding());
    }

    @Test
    void aQueueLateForAWholeIntervalShedsTheLateOnes() {
        long now = 0;
        for (int i = 0; i < 10; i++, now += 10 * MS) {
            assertFalse(delay.late(120 * MS + i, now), "late for less than the interval: still served");
        }
        assertTrue(delay.late(130 * MS, now + 1 * MS), "late for a whole interval: refused");
        assertTrue(delay.shedding());
        assertFalse(delay.late(90 * MS, now + 2 * MS), "a request within the target is served while shedding");
        assertTrue(delay.late(101 * MS, now + 3 * MS), "and the next late one is refused at once, no new interval");
    }

    @Test
    void sheddingEndsOnceTheQueueHasDrained() {
        delay.late(200 * MS, 0);
        delay.late(200 * MS, 100 * MS);
        assertTrue(delay.shedding());
        assertFalse(delay.late(60 * MS, 101 * MS));
        assertTrue(delay.shedding(), "waits near the target: still overloaded");
        assertFalse(delay.late(10 * MS, 102 * MS));
        assertFalse(delay.shedding(), "a wait under half the target: drained");
        assertFalse(delay.late(150 * MS, 103 * MS), "late again: a new interval must pass first");
    }
}
