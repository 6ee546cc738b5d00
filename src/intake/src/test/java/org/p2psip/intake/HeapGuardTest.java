package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HeapGuardTest {

    private static final long MIB = 1L << 20;
    private static final long SECOND = 1_000_000_000L;
    /** A 256 MiB heap whose kept transactions cost 4 KiB each; the guard lets it fill 80%, 204.8 MiB. */
    private final HeapGuard guard = new HeapGuard(256 * MIB, 4096);

    @Test
    void admitsWhileTheBaselineAndTheKeptTransactionsFitAndRefusesBeyond() {
        guard.collected(60 * MIB, 0); // the container, the application, the bindings: nothing kept yet
        long room = (long) (0.8 * 256 * MIB - 60 * MIB) / 4096; // 37,478 transactions
        for (long i = 0; i < room - 1; i++) {
            guard.admitted(SECOND);
        }
        assertFalse(guard.full(SECOND), "one more still fits");
        guard.admitted(SECOND);
        assertTrue(guard.full(SECOND), "the next would pass 80% of the heap before Timer J frees anything");
    }

    @Test
    void transactionsOutOfTheirTimerJWindowNoLongerCount() {
        guard.collected(60 * MIB, 0);
        for (int i = 0; i < 40_000; i++) {
            guard.admitted(SECOND);
        }
        assertTrue(guard.full(2 * SECOND));
        assertEquals(40_000, guard.kept());
        assertTrue(guard.full(SECOND + HeapGuard.KEPT_NANOS - SECOND), "still within the window");
        assertFalse(guard.full(SECOND + HeapGuard.KEPT_NANOS + SECOND), "Timer J has run out for all of them");
        assertEquals(0, guard.kept());
    }

    @Test
    void theBaselineIsWhatACollectionLeftBesideTheKeptTransactions() {
        for (int i = 0; i < 10_000; i++) {
            guard.admitted(SECOND);
        }
        guard.collected(100 * MIB, 2 * SECOND); // 39 MiB of it the 10,000 transactions: a baseline of 61 MiB
        long rate = guard.sustainableRate();
        long expected = (long) (0.8 * 256 * MIB - (100 * MIB - 10_000 * 4096L)) / 4096 * SECOND / HeapGuard.KEPT_NANOS;
        assertEquals(expected, rate, "the REGISTER/s whose transactions the rest of the heap holds");
    }

    @Test
    void aHeapFullerAfterCollectionThanTheShareRefusesWhateverTheEstimate() {
        guard.collected(220 * MIB, SECOND); // more than 80% left after collection: the estimate was short
        assertTrue(guard.full(SECOND));
        guard.collected(90 * MIB, 3 * SECOND);
        assertFalse(guard.full(3 * SECOND), "once a collection freed enough, requests are taken again");
    }

    @Test
    void aLongSilenceForgetsEveryBucket() {
        guard.collected(60 * MIB, 0);
        for (int i = 0; i < 40_000; i++) {
            guard.admitted(5 * SECOND);
        }
        assertFalse(guard.full(1000 * SECOND), "nothing taken for minutes");
        assertEquals(0, guard.kept());
    }

    @Test
    void refusingOnAStaleReadingAsksForACollectionAfterASecondAndAtMostEveryFiveSeconds() {
        guard.collected(220 * MIB, 0); // the old generation full of a flood's dead transactions
        assertTrue(guard.full(SECOND));
        assertFalse(guard.wantsCollection(SECOND + SECOND / 2), "refusing for half a second only");
        assertTrue(guard.wantsCollection(2 * SECOND + 1), "refusing for a second");
        assertTrue(guard.full(3 * SECOND), "the asked collection has not reported yet");
        assertFalse(guard.wantsCollection(3 * SECOND), "asked a second ago");
        assertTrue(guard.wantsCollection(7 * SECOND + 2), "five seconds later, still refusing: asked again");
        guard.collected(80 * MIB, 8 * SECOND);
        assertFalse(guard.full(8 * SECOND), "the collection freed the garbage");
        assertFalse(guard.wantsCollection(20 * SECOND), "not refusing: nothing to ask");
    }
}
