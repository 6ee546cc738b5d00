package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IntakeTest {

    @Test
    void openingJudgesAfreshWhatTheSlowWarmUpLeftBehind() {
        Intake.restart();
        Intake.configure(Duration.ofMillis(100), Duration.ofMillis(200), 0.3, 5);
        long second = 1_000_000_000L;
        for (int i = 0; i < 20; i++) { // cold warm-up answers, each a second late
            Intake.responseDelay().arrived("z9hg4bk-warm-" + i, i * second);
            Intake.responseDelay().answered("z9hg4bk-warm-" + i, (i + 1) * second);
            Intake.responseDelay().update((i + 1) * second);
        }
        Intake.queueDelay().late(300_000_000L, 0);
        Intake.queueDelay().late(300_000_000L, 200_000_000L);
        assertTrue(Intake.responseDelay().refusedShare() > 0, "the warm-up's delays moved the refused share");
        assertTrue(Intake.queueDelay().shedding());

        Intake.open();

        assertEquals(0.0, Intake.responseDelay().refusedShare(), "the first clients are not refused for the warm-up");
        assertFalse(Intake.queueDelay().shedding());
    }
}
