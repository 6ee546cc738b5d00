package org.p2psip.dht.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class PaceTest {

    @Test
    void waitsDoubleAfterRoundsThatChangeNothingUpToTheIdleInterval() {
        var pace = new Pace(Duration.ofMillis(500), Duration.ofSeconds(3));
        assertEquals(List.of(500L, 1000L, 2000L, 3000L, 3000L), waits(pace, 5), "milliseconds between rounds at rest");
    }

    @Test
    void aChangeBringsTheBaseIntervalBack() {
        var pace = new Pace(Duration.ofMillis(500), Duration.ofSeconds(3));
        waits(pace, 4);
        pace.changed();
        assertEquals(List.of(500L, 1000L), waits(pace, 2), "milliseconds between rounds after a change");
    }

    @Test
    void anIdleIntervalShorterThanTheBaseIsTheBase() {
        var pace = new Pace(Duration.ofSeconds(2), Duration.ofSeconds(1));
        assertEquals(List.of(2000L, 2000L), waits(pace, 2), "milliseconds between rounds");
    }

    private static List<Long> waits(Pace pace, int rounds) {
        return Stream.generate(() -> pace.next().toMillis()).limit(rounds).toList();
    }
}
