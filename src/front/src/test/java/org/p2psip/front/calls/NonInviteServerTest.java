package org.p2psip.front.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 3261 §17.2.2 (figure 8, Table 4) on a scripted clock. */
class NonInviteServerTest {

    static final class Calls implements NonInviteServer.User {
        final List<String> calls = new ArrayList<>();
        private final Timers clock;

        Calls(Timers clock) {
            this.clock = clock;
        }

        @Override
        public void terminated(NonInviteServer t) {
            assertFalse(Thread.holdsLock(t), "the user is called without the machine's lock");
            calls.add("terminated@" + clock.nowMillis());
        }
    }

    private final ScriptedTimers clock = new ScriptedTimers();
    private final RecordingHop udp = new RecordingHop(clock, false);
    private final Calls user = new Calls(clock);
    private final Message register = SipMessages.request("REGISTER", 7);

    @Test
    void aRetransmissionInTryingIsAbsorbedAndInProceedingGetsTheLastProvisionalAnswer() {
        var t = new NonInviteServer(register, udp, clock, user);
        assertEquals("trying", t.state());
        t.onRetransmission();
        assertEquals(List.of(), udp.whats(), "nothing to say yet");
        Message trying = SipMessages.answer(register, 100, null);
        t.respond(trying);
        assertEquals("proceeding", t.state());
        t.onRetransmission();
        assertEquals(List.of("100", "100"), udp.whats());
        assertSame(trying, udp.lastRaw());
    }

    @Test
    void theFinalAnswerIsSentAgainForEachRetransmissionUntilTimerJAt64T1() {
        var t = new NonInviteServer(register, udp, clock, user);
        clock.advanceTo(300);
        Message ok = SipMessages.answer(register, 200, "reg");
        t.respond(ok);
        assertEquals("completed", t.state());
        assertSame(ok, t.lastFinal());
        clock.advanceTo(10_000);
        t.onRetransmission();
        t.respond(SipMessages.answer(register, 500, "reg")); // discarded in Completed
        t.respond(SipMessages.answer(register, 100, null)); // too
        clock.advanceTo(32_299);
        t.onRetransmission();
        assertEquals("completed", t.state());
        assertEquals(List.of(300L, 10_000L, 32_299L), udp.times("200"), "never sent again of its own accord");
        clock.advanceTo(32_300);
        assertEquals("terminated", t.state());
        t.onRetransmission();
        assertEquals(List.of("200", "200", "200"), udp.whats());
        assertEquals(List.of("terminated@32300"), user.calls);
        assertEquals(0, clock.pending());
    }

    @Test
    void overAReliableHopTimerJIsZero() {
        var tcp = new RecordingHop(clock, true);
        var t = new NonInviteServer(register, tcp, clock, user);
        clock.advanceTo(50);
        t.respond(SipMessages.answer(register, 200, "reg"));
        assertEquals("terminated", t.state());
        assertEquals(List.of("200"), tcp.whats());
        assertEquals(List.of("terminated@50"), user.calls);
    }

    @Test
    void timerJFiringAfterTheStateMovedOnDoesNothing() {
        var late = ScriptedTimers.ignoringCancels();
        var calls = new Calls(late);
        var t = new NonInviteServer(register, new RecordingHop(late, false), late, calls);
        t.respond(SipMessages.answer(register, 200, "reg"));
        t.stop();
        late.advanceTo(100_000);
        assertEquals("terminated", t.state());
        assertEquals(List.of(), calls.calls, "stopped silently; Timer J then finds nothing to end");
    }
}
