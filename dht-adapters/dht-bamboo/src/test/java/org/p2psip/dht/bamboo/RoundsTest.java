package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundsTest {

    private static final long S = 1_000_000_000L;

    @Test
    void roundsThatChangeNothingDoubleTheWaitUpToTheIdlePeriod() {
        var rounds = new Rounds(Duration.ofSeconds(1), Duration.ofSeconds(8), 0);
        assertEquals(List.of(1L, 2L, 4L, 8L, 8L, 8L), gapsOfRounds(rounds, 0, 6),
                "seconds between rounds that changed nothing");
    }

    @Test
    void aChangeBringsTheNextRoundWithinOneBasePeriodAndTheBasePeriodBack() {
        var rounds = new Rounds(Duration.ofSeconds(1), Duration.ofSeconds(8), 0);
        gapsOfRounds(rounds, 0, 5); // rounds at 1, 3, 7, 15, 23 s; the next is due at 31 s
        rounds.changed(24 * S);
        assertFalse(rounds.due(24 * S + S / 2), "no round before one base period has passed");
        assertTrue(rounds.due(25 * S), "a change is followed by a round one base period later, not 7 s later");
        assertEquals(Duration.ofSeconds(2), rounds.nextWait(), "after the change, waits start again from the base period");
    }

    /** Steps time by one tenth of a second from {@code from} and returns the seconds between the first {@code rounds} due rounds. */
    private static List<Long> gapsOfRounds(Rounds paced, long from, int rounds) {
        List<Long> gaps = new ArrayList<>();
        long last = from;
        for (long now = from; gaps.size() < rounds; now += S / 10) {
            if (paced.due(now)) {
                gaps.add(Math.round((now - last) / (double) S));
                last = now;
            }
        }
        return gaps;
    }
}
