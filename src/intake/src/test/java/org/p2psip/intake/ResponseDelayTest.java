package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ResponseDelayTest {

    private static final long MS = 1_000_000;
    private final ResponseDelay delay = new ResponseDelay(200 * MS);
    private long now = 1_000_000 * MS;
    private int branches;

    @Test
    void answersWithinTheTargetRefuseNothing() {
        for (int i = 0; i < 40; i++) {
            answerAfter(20 * MS);
            delay.update(now);
        }
        assertEquals(0.0, delay.refusedShare());
    }

    @Test
    void oneSlowAnswerAmongFastOnesRefusesAlmostNothing() {
        answerAfter(2_000 * MS); // a lookup retried up to its deadline
        delay.update(now);
        for (int i = 0; i < 40; i++) {
            answerAfter(20 * MS);
            delay.update(now);
        }
        assertTrue(delay.refusedShare() < 0.001, "one slow answer moved the share to " + delay.refusedShare());
        assertNoneRefused("answers are fast again: the small share left refuses no one");
    }

    @Test
    void aSpikeShorterThanTheBurstAllowanceRefusesNoOneButALongerOneDoes() {
        for (int i = 0; i < 10; i++) { // calm
            answerAfter(20 * MS);
            delay.update(now);
        }
        for (int i = 0; i < 2; i++) { // 100 ms of answers far beyond the target
            answerAfter(50 * MS);
            delay.arrived("z9hg4bk-slow-" + i, now - 1_000 * MS);
            delay.answered("z9hg4bk-slow-" + i, now);
            delay.update(now);
        }
        assertTrue(delay.refusedShare() > 0);
        assertNoneRefused("within the burst allowance");
        for (int i = 0; i < 40; i++) { // two more seconds of it
            answerAfter(50 * MS);
            delay.arrived("z9hg4bk-late-" + i, now - 1_000 * MS);
            delay.answered("z9hg4bk-late-" + i, now);
            delay.update(now);
        }
        assertTrue(refusedOf(1000) > 0, "a sustained overload is shed");
    }

    private void assertNoneRefused(String why) {
        assertEquals(0, refusedOf(1000), why);
    }

    private int refusedOf(int requests) {
        int refused = 0;
        for (int i = 0; i < requests; i++) {
            refused += delay.refuseNext() ? 1 : 0;
        }
        return refused;
    }

    @Test
    void answersLateForSeveralUpdatesRefuseAGrowingShareThatFallsBackOnceTheyAreFast() {
        double before = 0;
        for (int i = 0; i < 40; i++) {
            answerAfter(600 * MS);
            delay.update(now);
            assertTrue(delay.refusedShare() >= before, "the share grows while answers take three times the target");
            before = delay.refusedShare();
        }
        assertTrue(before > 0.5, "after two seconds of answers three times late, most new requests are refused: " + before);
        for (int i = 0; i < 40; i++) {
            answerAfter(20 * MS);
            delay.update(now);
        }
        assertEquals(0.0, delay.refusedShare(), "back to nothing refused once answers are fast again");
    }

    @Test
    void aNodeThatAnswersNothingIsNotTakenForAnIdleOne() {
        delay.arrived("z9hg4bk-stuck", now);
        for (int i = 0; i < 20; i++) {
            now += 50 * MS;
            delay.update(now);
        }
        assertTrue(delay.refusedShare() > 0, "a request unanswered for a second counts as delay");
    }

    private void answerAfter(long nanos) {
        String branch = "z9hg4bk-" + branches++;
        delay.arrived(branch, now);
        now += nanos;
        delay.answered(branch, now);
    }
}
