package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sequential search's time limit (RFC 3261 §16.6), on one memory node of the real container
 * with {@code p2psip.proxy.branch-timeout=2s}: the callee's q=1.0 contact is a dead phone (it
 * never answers, not even 100) or one that rings for ever (180, then nothing); in both cases the
 * q=0.5 contact must get the INVITE once the class timed out, long before the container's Timer B
 * (32 s), and the caller must hear that contact's answer: its 200, or its 486 as the best failure;
 * when both stay silent, 408 once each class rang for the time-out.
 */
@Matrix
class QClassTimeoutIT extends DeployedNodes {

    static final int NODE = 29430;
    static final int PHONES = 29435;
    static final String DOMAIN = "p2psip.test";
    static final Duration BRANCH_TIMEOUT = Duration.ofSeconds(2);
    /** The branch time-out and room for a loaded 2-core machine; far below Timer B's 32 s. */
    static final Duration NEXT_CLASS = Duration.ofSeconds(15);
    static final Duration SOON = Duration.ofSeconds(10);

    private ScriptedPhone caller;
    private ScriptedPhone first;   // q=1.0
    private ScriptedPhone second;  // q=0.5

    QClassTimeoutIT() {
        super("qclass", NODE, 1);
        deployment.withSetting("p2psip.proxy.branch-timeout", BRANCH_TIMEOUT.toSeconds() + "s").withSipTrace(true);
    }

    @BeforeAll
    void phones() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target");
        caller = new ScriptedPhone("alice", PHONES);
        first = new ScriptedPhone("carol", PHONES + 1);
        second = new ScriptedPhone("carol", PHONES + 2);
        register(first, "1.0");
        register(second, "0.5");
    }

    @AfterAll
    void hangUp() {
        for (ScriptedPhone phone : new ScriptedPhone[] {caller, first, second}) {
            if (phone != null) {
                phone.close();
            }
        }
    }

    /** The first contact's retransmitted INVITEs and the node's CANCELs of one test are no business of the next. */
    @AfterEach
    void forget() {
        for (ScriptedPhone phone : new ScriptedPhone[] {caller, first, second}) {
            phone.clear();
        }
    }

    @Test
    void aContactThatNeverAnswersGivesWayToTheNextClassAfterTheBranchTimeout() {
        Call call = new Call();
        first.await("the INVITE at the q=1.0 contact", SOON, m -> m.isRequest("INVITE") && call.is(m));
        long sent = System.nanoTime();
        var invite = second.await("the INVITE at the q=0.5 contact within " + NEXT_CLASS, NEXT_CLASS,
                m -> m.isRequest("INVITE") && call.is(m));
        assertRangAfterTheTimeout(sent);
        answer(call, invite);
    }

    @Test
    void aContactThatRingsForEverGivesWayToTheNextClassAfterTheBranchTimeout() {
        Call call = new Call();
        var ringing = first.await("the INVITE at the q=1.0 contact", SOON, m -> m.isRequest("INVITE") && call.is(m));
        first.answer(ringing, 180, "Ringing", "first-" + call.id);
        long sent = System.nanoTime();
        var invite = second.await("the INVITE at the q=0.5 contact within " + NEXT_CLASS, NEXT_CLASS,
                m -> m.isRequest("INVITE") && call.is(m));
        assertRangAfterTheTimeout(sent);
        // the node CANCELs the ringing branch (RFC 3261 §16.7 step 10 does not apply: no 2xx yet)
        var cancel = first.await("the CANCEL of the timed-out branch", SOON, m -> m.isRequest("CANCEL") && call.is(m));
        first.answer(cancel, 200, "OK", "first-" + call.id);
        first.answer(ringing, 487, "Request Terminated", "first-" + call.id);
        answer(call, invite);
    }

    @Test
    void whenNoClassIsLeftTheCallerHearsTheBestFailureNotATimeout() {
        Call call = new Call();
        first.await("the INVITE at the q=1.0 contact", SOON, m -> m.isRequest("INVITE") && call.is(m));
        var invite = second.await("the INVITE at the q=0.5 contact within " + NEXT_CLASS, NEXT_CLASS,
                m -> m.isRequest("INVITE") && call.is(m));
        second.answer(invite, 486, "Busy Here", "second-" + call.id);
        var answer = caller.await("the final answer", SOON, m -> m.status() >= 200 && m.cseqMethod().equals("INVITE") && call.is(m));
        assertEquals(486, answer.status(), "the caller should hear the q=0.5 contact's 486, got " + answer);
        call.ackFailure(answer);
    }

    @Test
    void whenEveryClassStaysSilentTheCallerGets408OnceTheLastTimedOut() {
        Call call = new Call();
        first.await("the INVITE at the q=1.0 contact", SOON, m -> m.isRequest("INVITE") && call.is(m));
        long sent = System.nanoTime();
        second.await("the INVITE at the q=0.5 contact within " + NEXT_CLASS, NEXT_CLASS, m -> m.isRequest("INVITE") && call.is(m));
        var answer = caller.await("the final answer", NEXT_CLASS, m -> m.status() >= 200 && m.cseqMethod().equals("INVITE") && call.is(m));
        assertEquals(408, answer.status(), "no contact answered: " + answer);
        Duration waited = Duration.ofNanos(System.nanoTime() - sent);
        assertTrue(waited.compareTo(BRANCH_TIMEOUT.multipliedBy(2).minusMillis(500)) >= 0,
                "408 after " + waited + ", before both classes rang for " + BRANCH_TIMEOUT);
        call.ackFailure(answer);
    }

    private void answer(Call call, ScriptedPhone.Message invite) {
        second.answer(invite, 180, "Ringing", "second-" + call.id);
        caller.await("the q=0.5 contact's 180", SOON, m -> m.isResponse(180, "INVITE") && call.is(m));
        second.answer(invite, 200, "OK", "second-" + call.id);
        var ok = caller.await("the q=0.5 contact's 200", SOON, m -> m.status() >= 200 && m.cseqMethod().equals("INVITE") && call.is(m));
        assertEquals(200, ok.status(), "the caller's final answer: " + ok);
        assertTrue(ok.header("Contact").contains(second.contact()), "the 200 came from the q=0.5 contact: " + ok);
        call.ack2xx(ok);
        second.await("the ACK", SOON, m -> m.isRequest("ACK") && call.is(m));
        call.bye(ok);
        var bye = second.await("the BYE", SOON, m -> m.isRequest("BYE") && call.is(m));
        second.answer(bye, 200, "OK", null);
        caller.await("the 200 to the BYE", SOON, m -> m.isResponse(200, "BYE") && call.is(m));
    }

    /** The second class rang no earlier than the branch time-out allows (a little less: the INVITE took a while to reach the first). */
    private static void assertRangAfterTheTimeout(long sinceNanos) {
        Duration waited = Duration.ofNanos(System.nanoTime() - sinceNanos);
        assertTrue(waited.compareTo(BRANCH_TIMEOUT.minusMillis(500)) >= 0,
                "the q=0.5 contact rang after " + waited + ", before the q=1.0 class's time-out of " + BRANCH_TIMEOUT);
    }

    private InetSocketAddress node() {
        return new InetSocketAddress("127.0.0.1", NODE);
    }

    private void register(ScriptedPhone phone, String q) {
        var answer = phone.register(node(), DOMAIN, q, SOON);
        assertEquals(200, answer.status(), "REGISTER of " + phone.contact() + ": " + answer);
    }

    /** The caller's side of one call to carol: its INVITE is sent when made. */
    private final class Call {
        final String id = ScriptedPhone.newId("qclass");
        final String branch = ScriptedPhone.newBranch();
        final String uri = "sip:carol@" + DOMAIN;

        Call() {
            caller.send(node(),
                    "INVITE " + uri + " SIP/2.0",
                    "Via: " + caller.via(branch),
                    "Max-Forwards: 70",
                    "From: <sip:alice@" + DOMAIN + ">;tag=" + id,
                    "To: <" + uri + ">",
                    "Call-ID: " + id,
                    "CSeq: 1 INVITE",
                    "Contact: <" + caller.contact() + ">");
        }

        boolean is(ScriptedPhone.Message m) {
            return id.equals(m.header("Call-ID"));
        }

        /** The ACK of a failure answer: the INVITE's branch, hop by hop (RFC 3261 §17.1.1.3). */
        void ackFailure(ScriptedPhone.Message answer) {
            caller.send(node(),
                    "ACK " + uri + " SIP/2.0",
                    "Via: " + caller.via(branch),
                    "Max-Forwards: 70",
                    "From: <sip:alice@" + DOMAIN + ">;tag=" + id,
                    "To: " + answer.header("To"),
                    "Call-ID: " + id,
                    "CSeq: 1 ACK");
        }

        void ack2xx(ScriptedPhone.Message ok) {
            inDialog("ACK", ok, 1);
        }

        void bye(ScriptedPhone.Message ok) {
            inDialog("BYE", ok, 2);
        }

        /** A request of the dialog the 2xx set up: to its Contact, along its Record-Route reversed, through the node. */
        private void inDialog(String method, ScriptedPhone.Message ok, int cseq) {
            List<String> routes = new ArrayList<>(ok.listed("Record-Route"));
            java.util.Collections.reverse(routes);
            String contact = ok.header("Contact");
            String target = contact.substring(contact.indexOf('<') + 1, contact.indexOf('>'));
            var lines = new ArrayList<String>(List.of(
                    method + " " + target + " SIP/2.0",
                    "Via: " + caller.via(ScriptedPhone.newBranch()),
                    "Max-Forwards: 70",
                    "From: <sip:alice@" + DOMAIN + ">;tag=" + id,
                    "To: " + ok.header("To"),
                    "Call-ID: " + id,
                    "CSeq: " + cseq + " " + method));
            routes.forEach(r -> lines.add("Route: " + r));
            caller.send(node(), lines.toArray(String[]::new));
        }
    }
}
