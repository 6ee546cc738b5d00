package org.p2psip.front.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 3261 §17.2.1 (figure 7, Table 4) with RFC 6026's Accepted state, on a scripted clock. */
class InviteServerTest {

    static final class Calls implements InviteServer.User {
        final List<String> calls = new ArrayList<>();
        private final Timers clock;

        Calls(Timers clock) {
            this.clock = clock;
        }

        private void record(InviteServer t, String call) {
            assertFalse(Thread.holdsLock(t), "the user is called without the machine's lock: " + call);
            calls.add(call + "@" + clock.nowMillis());
        }

        @Override
        public void ackTimedOut(InviteServer t) {
            record(t, "ackTimedOut");
        }

        @Override
        public void terminated(InviteServer t) {
            record(t, "terminated");
        }

        @Override
        public void connectionLost(InviteServer t) {
            record(t, "connectionLost");
        }
    }

    private final ScriptedTimers clock = new ScriptedTimers();
    private final RecordingHop udp = new RecordingHop(clock, false);
    private final Calls user = new Calls(clock);
    private final Message invite = SipMessages.invite();
    private final SIPRequest sent = SipMessages.asRequest(invite);

    @Test
    void startAnswers100TryingAtOnceMadeFromTheInviteWithoutAToTag() {
        var t = new InviteServer(invite, udp, clock, user);
        t.start();
        t.start();
        assertEquals(List.of("100"), udp.whats(), "once");
        SIPResponse trying = (SIPResponse) udp.last();
        assertEquals("Trying", trying.getReasonPhrase());
        assertNull(trying.getTo().getTag(), "a 100 of the front's own has no To tag");
        assertEquals(sent.getTo().toString(), trying.getTo().toString());
        assertEquals(sent.getFrom().toString(), trying.getFrom().toString());
        assertEquals("c1@example.com", trying.getCallId().getCallId());
        assertEquals(314, trying.getCSeq().getSeqNumber());
        assertEquals("INVITE", trying.getCSeq().getMethod());
        assertEquals(sent.getViaHeaders().toString(), trying.getViaHeaders().toString(), "every Via, in order");
        assertEquals("54", trying.getHeader("Timestamp").toString().replaceAll("\\D+", ""), "§8.2.6.1");
        assertNull(trying.getHeader("Record-Route"));
        assertEquals("proceeding", t.state());
    }

    @Test
    void aRetransmittedInviteGetsTheLastProvisionalAnswerAgain() {
        var t = new InviteServer(invite, udp, clock, user);
        t.start();
        t.onRetransmission();
        assertEquals(List.of("100", "100"), udp.whats());
        Message ringing = SipMessages.answer(invite, 180, "callee");
        t.respond(ringing);
        t.onRetransmission();
        assertEquals(List.of("100", "100", "180", "180"), udp.whats());
        assertSame(ringing, udp.lastRaw());
        assertNull(t.lastFinal());
    }

    @Test
    void aFailureAnswerIsSentAgainOnTimerGDoublingUpToT2UntilItsAckWhichStopsIt() {
        var t = new InviteServer(invite, udp, clock, user);
        t.start();
        clock.advanceTo(1_000);
        Message busy = SipMessages.answer(invite, 486, "callee");
        t.respond(busy);
        assertEquals("completed", t.state());
        assertSame(busy, t.lastFinal());
        clock.advanceTo(13_000);
        t.onRetransmission();
        assertEquals(List.of(1_000L, 1_500L, 2_500L, 4_500L, 8_500L, 12_500L, 13_000L), udp.times("486"),
                "Timer G at T1, 2T1, 4T1, then every T2, and the retransmitted INVITE answered");
        t.respond(SipMessages.answer(invite, 500, "callee"));
        assertEquals(0, udp.times("500").size(), "a second final answer is discarded in Completed");

        t.onAck();
        assertEquals("confirmed", t.state());
        t.onRetransmission(); // absorbed in Confirmed
        t.onAck(); // absorbed
        clock.advanceTo(17_999);
        assertEquals("confirmed", t.state());
        clock.advanceTo(18_000);
        assertEquals("terminated", t.state(), "Timer I: T4 after the ACK");
        clock.advanceTo(100_000);
        assertEquals(7, udp.times("486").size(), "nothing sent after the ACK");
        assertEquals(List.of("terminated@18000"), user.calls);
        assertEquals(0, clock.pending());
    }

    @Test
    void withoutAnAckTimerHEndsItAt64T1AndTellsTheUser() {
        var t = new InviteServer(invite, udp, clock, user);
        t.start();
        t.respond(SipMessages.answer(invite, 603, "callee"));
        clock.advanceTo(100_000);
        assertEquals(List.of(0L, 500L, 1_500L, 3_500L, 7_500L, 11_500L, 15_500L, 19_500L, 23_500L, 27_500L,
                31_500L), udp.times("603"));
        assertEquals(List.of("ackTimedOut@32000", "terminated@32000"), user.calls);
        assertEquals("terminated", t.state());
        t.onAck();
        t.onRetransmission();
        assertEquals(11, udp.times("603").size());
    }

    @Test
    void a2xxMovesToAcceptedWhereTheInviteAndTheAckAreAbsorbedAndLaterTwoHundredsPassUntilTimerL() {
        var t = new InviteServer(invite, udp, clock, user);
        t.start();
        clock.advanceTo(2_000);
        Message ok = SipMessages.answer(invite, 200, "callee");
        t.respond(ok);
        assertEquals("accepted", t.state());
        t.onRetransmission();
        t.onAck(); // the ACK of a 2xx is the owner's to forward
        assertEquals("accepted", t.state());
        clock.advanceTo(2_500);
        t.respond(SipMessages.answer(invite, 200, "callee")); // the callee's retransmission passes through
        t.respond(SipMessages.answer(invite, 180, "callee")); // not after a final answer
        assertEquals(List.of("100", "200", "200"), udp.whats());
        assertEquals(List.of(2_000L, 2_500L), udp.times("200"), "no retransmission of a 2xx of the machine's own");
        clock.advanceTo(33_999);
        assertEquals("accepted", t.state());
        clock.advanceTo(34_000);
        assertEquals("terminated", t.state());
        assertEquals(List.of("terminated@34000"), user.calls);
    }

    @Test
    void overAReliableHopTheFailureIsSentOnceAndTheAckEndsItAtOnce() {
        var tcp = new RecordingHop(clock, true);
        var t = new InviteServer(invite, tcp, clock, user);
        t.start();
        t.respond(SipMessages.answer(invite, 486, "callee"));
        clock.advanceTo(10_000);
        assertEquals(List.of(0L), tcp.times("486"), "no Timer G over a reliable hop");
        t.onAck();
        assertEquals("terminated", t.state(), "Timer I is zero");
        assertEquals(List.of("terminated@10000"), user.calls);

        var unacknowledged = new InviteServer(invite, tcp, clock, new Calls(clock));
        unacknowledged.respond(SipMessages.answer(invite, 486, "callee"));
        clock.advanceTo(42_000);
        assertEquals("terminated", unacknowledged.state(), "Timer H runs over a reliable hop too");
    }

    @Test
    void aClosedConnectionEndsTheTransactionsSendingWithoutAWordMore() {
        var tcp = new RecordingHop(clock, true);
        var t = new InviteServer(invite, tcp, clock, user);
        t.start();
        tcp.close();
        t.respond(SipMessages.answer(invite, 486, "callee"));
        assertEquals("terminated", t.state(), "§17.2.4: the transport error ends it");
        t.onRetransmission();
        t.respond(SipMessages.answer(invite, 500, "callee"));
        clock.advanceTo(100_000);
        assertEquals(List.of("100"), tcp.whats(), "nothing after the failed send");
        assertEquals(List.of("connectionLost@0"), user.calls, "told once; no Timer H, no terminated");
        assertEquals(0, clock.pending(), "no timer left behind");
    }

    @Test
    void timersThatFireAfterTheStateMovedOnDoNothing() {
        var late = ScriptedTimers.ignoringCancels();
        var hop = new RecordingHop(late, false);
        var calls = new Calls(late);
        var t = new InviteServer(invite, hop, late, calls);
        t.start();
        t.respond(SipMessages.answer(invite, 486, "callee"));
        late.advanceTo(100);
        t.onAck();
        late.advanceTo(100_000); // Timer G at 500 in Confirmed, Timer H at 32000 in Terminated
        assertEquals(List.of(0L), hop.times("486"));
        assertEquals(List.of("terminated@5100"), calls.calls, "no ackTimedOut, terminated once");
    }

    @Test
    void theOwnerMayAnswerFromInsideACallback() {
        var tcp = new RecordingHop(clock, true);
        var second = new InviteServer(SipMessages.invite(), tcp, clock, new Calls(clock));
        var t = new InviteServer(invite, tcp, clock, new InviteServer.User() {
            @Override
            public void ackTimedOut(InviteServer s) {
            }

            @Override
            public void terminated(InviteServer s) {
                assertTrue(s.state().equals("terminated"));
                second.respond(SipMessages.answer(second.request(), 500, "x")); // no lock held: no deadlock
            }
        });
        t.respond(SipMessages.answer(invite, 486, "callee"));
        t.onAck();
        assertEquals(List.of("486", "500"), tcp.whats());
    }
}
