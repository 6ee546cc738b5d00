package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.bryan.SequenceWindow.Verdict;

/** One sender life's sequences: each accepted once, in any order within the bitmap's reach, never below it. */
class SequenceWindowTest {

    private static final int REACH = SequenceWindow.REACH;

    @Test
    void everySequenceOfTheReachIsAcceptedOnceInAnyOrder() {
        var sequences = new ArrayList<Long>();
        for (long s = 2; s <= REACH; s++) {
            sequences.add(s);
        }
        Collections.shuffle(sequences, new Random(7));
        var window = new SequenceWindow(1);
        for (long s : sequences) {
            assertEquals(Verdict.NEW, window.accept(s), "sequence " + s + " the first time");
        }
        for (long s = 1; s <= REACH; s++) {
            assertEquals(Verdict.SEEN, window.accept(s), "sequence " + s + " the second time");
        }
    }

    @Test
    void theLowestSequenceTheBitmapReachesIsAcceptedAndTheOneBelowIsTooOld() {
        var window = new SequenceWindow(REACH + 1L);
        assertEquals(Verdict.TOO_OLD, window.accept(1), "REACH below the highest");
        assertEquals(Verdict.NEW, window.accept(2), "REACH - 1 below the highest");
        assertEquals(Verdict.SEEN, window.accept(2));
    }

    @Test
    void slidingForwardForgetsOnlyWhatFallsOutOfReach() {
        var window = new SequenceWindow(100);
        assertEquals(Verdict.NEW, window.accept(101));
        assertEquals(Verdict.NEW, window.accept(100 + REACH));
        assertEquals(Verdict.TOO_OLD, window.accept(100), "now REACH below the highest");
        assertEquals(Verdict.SEEN, window.accept(101), "still within reach, and seen");
        assertEquals(Verdict.NEW, window.accept(102), "within reach, never seen");
        assertEquals(Verdict.NEW, window.accept(100 + 3L * REACH), "a jump past the whole bitmap");
        assertEquals(Verdict.NEW, window.accept(100 + 2L * REACH + 1), "its slot was cleared, not left marked");
        assertEquals(Verdict.TOO_OLD, window.accept(100 + 2L * REACH));
    }

    @Test
    void aRefusedSequenceChangesNothing() {
        var window = new SequenceWindow(REACH + 10L);
        window.accept(REACH + 10L);
        window.accept(5);
        assertEquals(REACH + 10L, window.highest());
        assertEquals(Verdict.NEW, window.accept(11), "a neighbour of the refused ones, still new");
    }
}
