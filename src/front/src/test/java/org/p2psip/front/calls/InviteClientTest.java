package org.p2psip.front.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.message.SIPRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 3261 §17.1.1 (figure 5, Table 4) on a scripted clock: T1 = 500 ms. */
class InviteClientTest {

    /** Records each call as "what status@time"; fails a call made under the machine's lock. */
    static final class Calls implements InviteClient.User {
        final List<String> calls = new ArrayList<>();
        final List<Message> answers = new ArrayList<>();
        private final Timers clock;

        Calls(Timers clock) {
            this.clock = clock;
        }

        private void record(InviteClient t, String call) {
            assertFalse(Thread.holdsLock(t), "the user is called without the machine's lock: " + call);
            calls.add(call + "@" + clock.nowMillis());
        }

        @Override
        public void provisional(InviteClient t, Message r) {
            answers.add(r);
            record(t, "provisional " + r.status);
        }

        @Override
        public void finalAnswer(InviteClient t, Message r) {
            answers.add(r);
            record(t, "final " + r.status);
        }

        @Override
        public void timedOut(InviteClient t) {
            record(t, "timedOut");
        }

        @Override
        public void terminated(InviteClient t) {
            record(t, "terminated");
        }
    }

    private final ScriptedTimers clock = new ScriptedTimers();
    private final RecordingHop udp = new RecordingHop(clock, false);
    private final Calls user = new Calls(clock);
    private final Message invite = SipMessages.invite();
    private final SIPRequest sent = SipMessages.asRequest(invite);

    @Test
    void overUdpTheInviteIsSentAgainOnTimerADoublingFromT1AndTimesOutOnTimerBAt64T1() {
        var t = new InviteClient(invite, udp, clock, user);
        t.start();
        assertEquals("calling", t.state());
        clock.advanceTo(31_999);
        assertEquals(List.of(), user.calls);
        clock.advanceTo(100_000);
        assertEquals(List.of(0L, 500L, 1_500L, 3_500L, 7_500L, 15_500L, 31_500L), udp.times("INVITE"));
        assertTrue(udp.sent().stream().allMatch(s -> s.raw() == invite), "the same INVITE each time");
        assertEquals(List.of("timedOut@32000", "terminated@32000"), user.calls);
        assertEquals("terminated", t.state());
        assertEquals(0, clock.pending(), "no timer left behind");
    }

    @Test
    void overAReliableHopTheInviteIsSentOnceAndStillTimesOutAt64T1() {
        var tcp = new RecordingHop(clock, true);
        var t = new InviteClient(invite, tcp, clock, user);
        t.start();
        clock.advanceTo(100_000);
        assertEquals(List.of(0L), tcp.times("INVITE"));
        assertEquals(List.of("timedOut@32000", "terminated@32000"), user.calls);
    }

    @Test
    void anInviteThatCannotBeSentEndsTheMachineAtOnce() {
        var tcp = new RecordingHop(clock, true);
        tcp.close();
        var t = new InviteClient(invite, tcp, clock, user);
        t.start();
        assertEquals("terminated", t.state(), "§17.1.4: a transport error");
        assertEquals(List.of("timedOut@0"), user.calls, "by default the owner hears what Timer B would say, at once");
        assertEquals(0, clock.pending(), "no Timer B left behind");
    }

    @Test
    void aProvisionalAnswerStopsRetransmissionsAndTimerBAndEachOneGoesToTheUser() {
        var t = new InviteClient(invite, udp, clock, user);
        t.start();
        clock.advanceTo(1_000);
        assertFalse(t.proceeding(), "no provisional answer yet: no CANCEL may be sent");
        t.onResponse(SipMessages.answer(invite, 180, "b1"));
        assertEquals("proceeding", t.state());
        assertTrue(t.proceeding());
        clock.advanceTo(2_000);
        t.onResponse(SipMessages.answer(invite, 183, "b1"));
        clock.advanceTo(600_000);
        assertEquals(List.of(0L, 500L), udp.times("INVITE"));
        assertEquals(List.of("provisional 180@1000", "provisional 183@2000"), user.calls,
                "Timer B runs only in Calling: a branch that rang waits for the owner's Timer C");
        assertEquals("proceeding", t.state());
    }

    @Test
    void aFailureAnswerIsAcknowledgedByTheMachineAsRfc3261Section17113Says() {
        var t = new InviteClient(invite, udp, clock, user);
        t.start();
        clock.advanceTo(700);
        Message busy = SipMessages.answer(invite, 486, "busy-tag");
        t.onResponse(busy);
        assertEquals("completed", t.state());
        assertFalse(t.proceeding());
        assertEquals(List.of("INVITE", "INVITE", "ACK"), udp.whats());
        assertEquals(List.of("final 486@700"), user.calls);
        assertSame(busy, user.answers.get(0));

        SIPRequest ack = (SIPRequest) udp.last();
        assertEquals("ACK", ack.getMethod());
        assertEquals(sent.getRequestURI().toString(), ack.getRequestURI().toString());
        assertEquals("c1@example.com", ack.getCallId().getCallId());
        assertEquals(sent.getFrom().toString(), ack.getFrom().toString());
        assertEquals("a1", ack.getFrom().getTag());
        assertEquals("busy-tag", ack.getTo().getTag(), "the To of the answer acknowledged");
        assertEquals(SipMessages.asResponse(busy).getTo().toString(), ack.getTo().toString());
        assertEquals(314, ack.getCSeq().getSeqNumber());
        assertEquals("ACK", ack.getCSeq().getMethod());
        assertEquals(1, ack.getViaHeaders().size(), "one Via: the INVITE's top one");
        assertEquals(SipMessages.TOP_BRANCH, ack.getTopmostVia().getBranch());
        assertEquals(sent.getTopmostVia().toString(), ack.getTopmostVia().toString());
        assertEquals(sent.getRouteHeaders().toString(), ack.getRouteHeaders().toString(), "the INVITE's Route");
        assertEquals(2, ack.getRouteHeaders().size());
        assertNull(ack.getHeader("Contact"));
        assertNull(ack.getHeader("Record-Route"));
        assertEquals(0, ack.getContentLength().getContentLength());

        clock.advanceTo(1_200);
        t.onResponse(SipMessages.answer(invite, 486, "busy-tag")); // its ACK was lost
        assertEquals(List.of(700L, 1_200L), udp.times("ACK"), "the retransmitted 486 is acknowledged again");
        assertEquals(List.of("final 486@700"), user.calls, "and not told to the user again");
        assertEquals(List.of(0L, 500L), udp.times("INVITE"), "Timer A stopped at the 486");
    }

    @Test
    void timerDEndsTheCompletedStateAfter32SecondsOverUdpAndAtOnceOverAReliableHop() {
        var t = new InviteClient(invite, udp, clock, user);
        t.start();
        clock.advanceTo(100);
        t.onResponse(SipMessages.answer(invite, 603, "x"));
        clock.advanceTo(32_099);
        assertEquals("completed", t.state());
        clock.advanceTo(32_100);
        assertEquals("terminated", t.state());
        assertEquals(List.of("final 603@100", "terminated@32100"), user.calls);
        t.onResponse(SipMessages.answer(invite, 603, "x"));
        assertEquals(1, udp.times("ACK").size(), "after Timer D the machine is gone: no ACK");

        var tcp = new RecordingHop(clock, true);
        var calls = new Calls(clock);
        var reliable = new InviteClient(invite, tcp, clock, calls);
        reliable.start();
        reliable.onResponse(SipMessages.answer(invite, 480, "y"));
        assertEquals(List.of("INVITE", "ACK"), tcp.whats());
        assertEquals("terminated", reliable.state(), "Timer D is zero over a reliable hop");
        assertEquals(List.of("final 480@32100", "terminated@32100"), calls.calls);
    }

    @Test
    void a2xxGoesToTheUserAndEndsTheMachineWithoutAnAckOfItsOwn() {
        var t = new InviteClient(invite, udp, clock, user);
        t.start();
        clock.advanceTo(300);
        t.onResponse(SipMessages.answer(invite, 180, "b1"));
        clock.advanceTo(900);
        Message ok = SipMessages.answer(invite, 200, "b1");
        t.onResponse(ok);
        assertEquals("terminated", t.state());
        assertSame(ok, user.answers.get(1));
        t.onResponse(SipMessages.answer(invite, 200, "b1")); // the callee's retransmission: the owner's
        clock.advanceTo(100_000);
        assertEquals(List.of("INVITE"), udp.whats(), "the ACK of a 2xx is the caller's, end to end");
        assertEquals(List.of("provisional 180@300", "final 200@900", "terminated@900"), user.calls);
    }

    @Test
    void theCancelHasTheInvitesIdentityItsTopViaOnlyItsRouteAndMaxForwards70() {
        var t = new InviteClient(invite, udp, clock, user);
        SIPRequest cancel = SipMessages.asRequest(t.cancelRequest());
        assertEquals("CANCEL", cancel.getMethod());
        assertEquals(sent.getRequestURI().toString(), cancel.getRequestURI().toString());
        assertEquals("c1@example.com", cancel.getCallId().getCallId());
        assertEquals(sent.getFrom().toString(), cancel.getFrom().toString());
        assertEquals(sent.getTo().toString(), cancel.getTo().toString());
        assertNull(cancel.getTo().getTag(), "the INVITE's To: no tag");
        assertEquals(314, cancel.getCSeq().getSeqNumber());
        assertEquals("CANCEL", cancel.getCSeq().getMethod());
        assertEquals(1, cancel.getViaHeaders().size());
        assertEquals(sent.getTopmostVia().toString(), cancel.getTopmostVia().toString(),
                "the INVITE's branch, so the next hop matches the CANCEL to it");
        assertEquals(sent.getRouteHeaders().toString(), cancel.getRouteHeaders().toString());
        assertEquals(70, cancel.getMaxForwards().getMaxForwards());
        assertEquals(69, SipMessages.asRequest(invite).getMaxForwards().getMaxForwards(), "the INVITE is left as it was");
        assertEquals("INVITE", SipMessages.asRequest(invite).getMethod());
        assertEquals(2, SipMessages.asRequest(invite).getViaHeaders().size());
    }

    @Test
    void anInviteWithoutMaxForwardsStillGetsItsAckAndCancel() {
        Message bare = SipMessages.inviteWithoutMaxForwards();
        var t = new InviteClient(bare, udp, clock, user);
        t.start();
        assertEquals(70, SipMessages.asRequest(t.cancelRequest()).getMaxForwards().getMaxForwards());
        t.onResponse(SipMessages.answer(bare, 404, "n"));
        assertEquals(70, ((SIPRequest) udp.last()).getMaxForwards().getMaxForwards());
        assertNull(SipMessages.asRequest(bare).getMaxForwards(), "the INVITE is left as it was");
    }

    @Test
    void timersThatFireAfterTheStateMovedOnDoNothing() {
        var late = ScriptedTimers.ignoringCancels();
        var hop = new RecordingHop(late, false);
        var calls = new Calls(late);
        var t = new InviteClient(invite, hop, late, calls);
        t.start();
        late.advanceTo(100);
        t.onResponse(SipMessages.answer(invite, 486, "b"));
        late.advanceTo(31_000); // Timer A fires at 500 in Completed
        assertEquals(List.of("INVITE", "ACK"), hop.whats());
        t.stop();
        late.advanceTo(100_000); // Timer B at 32000 and Timer D at 32100 fire after stop
        assertEquals(List.of("final 486@100"), calls.calls);
        assertEquals(List.of("INVITE", "ACK"), hop.whats());
    }

    @Test
    void stopEndsTheMachineSilently() {
        var t = new InviteClient(invite, udp, clock, user);
        t.start();
        clock.advanceTo(600);
        t.stop();
        assertEquals("terminated", t.state());
        t.onResponse(SipMessages.answer(invite, 180, "b"));
        t.start();
        clock.advanceTo(100_000);
        assertEquals(List.of(0L, 500L), udp.times("INVITE"));
        assertEquals(List.of(), user.calls);
        assertEquals(0, clock.pending());
    }
}
