package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IntakeTest {

    @Test
    void openingJudgesAfreshWhatTheSlowWarmUpLeftBehind() {
        Intake intake = new Intake(new Intake.Settings(Duration.ofMillis(100), Duration.ofMillis(200), 0.3, 5, 0),
                new StackLink());
        long second = 1_000_000_000L;
        for (int i = 0; i < 20; i++) { // cold warm-up answers, each a second late
            intake.responseDelay().arrived("z9hg4bk-warm-" + i, i * second);
            intake.responseDelay().answered("z9hg4bk-warm-" + i, (i + 1) * second);
            intake.responseDelay().update((i + 1) * second);
        }
        intake.queueDelay().late(300_000_000L, 0);
        intake.queueDelay().late(300_000_000L, 200_000_000L);
        assertTrue(intake.responseDelay().refusedShare() > 0, "the warm-up's delays moved the refused share");
        assertTrue(intake.queueDelay().shedding());

        intake.open();

        assertEquals(0.0, intake.responseDelay().refusedShare(), "the first clients are not refused for the warm-up");
        assertFalse(intake.queueDelay().shedding());
    }

    @Test
    void untilAnApplicationAttachesItsIntakeTheNodeIsStartingAndTheAttachedOneDecidesFromThen() {
        StackLink link = new StackLink();
        assertEquals(Intake.State.STARTING, link.application().state(), "no application yet: new requests get Not Ready");

        Intake intake = new Intake(Intake.Settings.DEFAULTS, link);
        link.attach(intake);
        assertSame(intake, link.application());
        assertEquals(Intake.State.STARTING, link.application().state(), "attached, not yet opened");
        intake.open();
        assertEquals(Intake.State.OPEN, link.application().state());
        intake.close();
        assertEquals(Intake.State.STOPPING, link.application().state(), "its application stops: Stopping");

        Intake next = new Intake(Intake.Settings.DEFAULTS, link);
        link.attach(next);
        assertEquals(Intake.State.STARTING, link.application().state(), "a redeployed application starts afresh");
    }
}
