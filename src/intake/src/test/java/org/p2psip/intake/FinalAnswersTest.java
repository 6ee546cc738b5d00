package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FinalAnswersTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long TIMER_J = 32 * SECOND;

    private final long start = 1_000 * SECOND;
    private final FinalAnswers answers = new FinalAnswers(TIMER_J, start);
    private final byte[] ok = "SIP/2.0 200 OK\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

    @Test
    void anAnswerIsFoundWithItsBytesUntilTimerJAndForgottenAfter() throws Exception {
        answers.put("z9hg4bk-1", new FinalAnswers.Answer("REGISTER", ok, InetAddress.getLoopbackAddress(), 6001), start);

        for (long at = start; at <= start + TIMER_J; at += SECOND) {
            FinalAnswers.Answer found = answers.find("z9hg4bk-1", "REGISTER", at);
            assertArrayEquals(ok, found.message(), "within Timer J, " + (at - start) / SECOND + " s after");
            assertEquals(6001, found.to().getPort());
        }
        answers.expire(start + TIMER_J + TIMER_J / 8 + SECOND);
        assertEquals(0, answers.size(), "its generation dropped, though nothing was sent or asked since");
        assertNull(answers.find("z9hg4bk-1", "REGISTER", start + TIMER_J + TIMER_J / 8 + SECOND), "forgotten after");
    }

    @Test
    void aCancelsAnswerIsNoAnswerToItsInviteAndAStrangersBranchFindsNothing() {
        answers.put("z9hg4bk-2", new FinalAnswers.Answer("CANCEL", ok, InetAddress.getLoopbackAddress(), 6001), start);

        assertNull(answers.find("z9hg4bk-2", "INVITE", start), "an INVITE's retransmission is the stack's");
        assertNull(answers.find("z9hg4bk-3", "REGISTER", start));
        assertArrayEquals(ok, answers.find("z9hg4bk-2", "CANCEL", start + SECOND).message());
    }

    @Test
    void answersLeaveGenerationByGenerationSoTheKeptCountFollowsTheRate() {
        for (int s = 0; s < 64; s++) {
            for (int i = 0; i < 100; i++) {
                answers.put("b-" + s + "-" + i, new FinalAnswers.Answer("REGISTER", ok, InetAddress.getLoopbackAddress(), 1),
                        start + s * SECOND);
            }
        }
        long kept = answers.size();
        assertEquals(true, kept >= 3_200 && kept <= 3_200 + 400 + 100,
                "100/s kept for 32 s and at most one generation (4 s) more: " + kept);
    }
}
