package org.p2psip.front.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 3261 §17.1.2 (figure 6, Table 4) on a scripted clock: T1 = 500 ms, T2 = 4 s, T4 = 5 s. */
class NonInviteClientTest {

    static final class Calls implements NonInviteClient.User {
        final List<String> calls = new ArrayList<>();
        final List<Message> answers = new ArrayList<>();
        private final Timers clock;

        Calls(Timers clock) {
            this.clock = clock;
        }

        private void record(NonInviteClient t, String call) {
            assertFalse(Thread.holdsLock(t), "the user is called without the machine's lock: " + call);
            calls.add(call + "@" + clock.nowMillis());
        }

        @Override
        public void provisional(NonInviteClient t, Message r) {
            answers.add(r);
            record(t, "provisional " + r.status);
        }

        @Override
        public void finalAnswer(NonInviteClient t, Message r) {
            answers.add(r);
            record(t, "final " + r.status);
        }

        @Override
        public void timedOut(NonInviteClient t) {
            record(t, "timedOut");
        }

        @Override
        public void terminated(NonInviteClient t) {
            record(t, "terminated");
        }
    }

    private final ScriptedTimers clock = new ScriptedTimers();
    private final RecordingHop udp = new RecordingHop(clock, false);
    private final Calls user = new Calls(clock);
    private final Message bye = SipMessages.request("BYE", 315);

    @Test
    void overUdpTimerEDoublesFromT1UpToT2AndTimerFEndsItAt64T1() {
        var t = new NonInviteClient(bye, udp, clock, user);
        t.start();
        assertEquals("trying", t.state());
        clock.advanceTo(100_000);
        assertEquals(List.of(0L, 500L, 1_500L, 3_500L, 7_500L, 11_500L, 15_500L, 19_500L, 23_500L, 27_500L,
                31_500L), udp.times("BYE"));
        assertEquals(List.of("timedOut@32000", "terminated@32000"), user.calls);
        assertEquals("terminated", t.state());
        assertEquals(0, clock.pending());
    }

    @Test
    void inProceedingTimerEFiresEveryT2AndTimerFStillEndsIt() {
        var t = new NonInviteClient(bye, udp, clock, user);
        t.start();
        clock.advanceTo(600);
        t.onResponse(SipMessages.answer(bye, 100, null));
        assertEquals("proceeding", t.state());
        clock.advanceTo(2_000);
        t.onResponse(SipMessages.answer(bye, 100, null));
        clock.advanceTo(100_000);
        // the Timer E pending at 1500 fires as scheduled, then every T2 (not 3500, 7500, ...)
        assertEquals(List.of(0L, 500L, 1_500L, 5_500L, 9_500L, 13_500L, 17_500L, 21_500L, 25_500L, 29_500L),
                udp.times("BYE"));
        assertEquals(List.of("provisional 100@600", "provisional 100@2000", "timedOut@32000", "terminated@32000"),
                user.calls);
    }

    @Test
    void theFinalAnswerGoesToTheUserOnceAndTimerKEndsTheCompletedStateAfterT4() {
        var t = new NonInviteClient(bye, udp, clock, user);
        t.start();
        clock.advanceTo(1_000);
        Message ok = SipMessages.answer(bye, 200, "b1");
        t.onResponse(ok);
        assertEquals("completed", t.state());
        assertSame(ok, user.answers.get(0));
        clock.advanceTo(3_000);
        t.onResponse(SipMessages.answer(bye, 200, "b1")); // retransmitted: absorbed
        t.onResponse(SipMessages.answer(bye, 100, null)); // late: absorbed
        clock.advanceTo(5_999);
        assertEquals("completed", t.state());
        clock.advanceTo(6_000);
        assertEquals("terminated", t.state());
        clock.advanceTo(100_000);
        assertEquals(List.of(0L, 500L), udp.times("BYE"), "no retransmission after the final answer");
        assertEquals(List.of("final 200@1000", "terminated@6000"), user.calls);
        assertEquals(0, clock.pending());
    }

    @Test
    void overAReliableHopTheRequestIsSentOnceAndTimerKIsZero() {
        var tcp = new RecordingHop(clock, true);
        var t = new NonInviteClient(bye, tcp, clock, user);
        t.start();
        clock.advanceTo(20_000);
        t.onResponse(SipMessages.answer(bye, 481, "b1"));
        assertEquals("terminated", t.state());
        assertEquals(List.of(0L), tcp.times("BYE"));
        assertEquals(List.of("final 481@20000", "terminated@20000"), user.calls);

        var silent = new NonInviteClient(SipMessages.request("OPTIONS", 1), tcp, clock, new Calls(clock));
        silent.start();
        clock.advanceTo(52_000);
        assertEquals("terminated", silent.state(), "Timer F runs over a reliable hop too");
    }

    @Test
    void timersThatFireAfterTheStateMovedOnDoNothing() {
        var late = ScriptedTimers.ignoringCancels();
        var hop = new RecordingHop(late, false);
        var calls = new Calls(late);
        var t = new NonInviteClient(bye, hop, late, calls);
        t.start();
        late.advanceTo(200);
        t.onResponse(SipMessages.answer(bye, 200, "b1"));
        late.advanceTo(4_000); // Timer E at 500 in Completed
        t.stop();
        late.advanceTo(100_000); // Timer K at 5200, Timer F at 32000
        assertEquals(List.of(0L), hop.times("BYE"));
        assertEquals(List.of("final 200@200"), calls.calls);
    }

    @Test
    void anInviteOrAnAckIsNotANonInviteTransaction() {
        assertThrows(IllegalArgumentException.class, () -> new NonInviteClient(SipMessages.invite(), udp, clock, user));
        assertThrows(IllegalArgumentException.class,
                () -> new NonInviteClient(SipMessages.request("ACK", 314), udp, clock, user));
    }
}
