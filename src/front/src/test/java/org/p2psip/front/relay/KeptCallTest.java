package org.p2psip.front.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.front.calls.KeptCalls;
import org.p2psip.front.calls.ScriptedTimers;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.Destination;

/**
 * The stateful front's call logic (KeptCalls, KeptCall, KeptTarget, KeptRequest) through the
 * forwarder, on the scripted clock: the caller's INVITE, the node's 302, the contacts rung one
 * after another in q order, CANCEL, the branch time-out, retransmissions absorbed, the dialog's
 * later requests routed by the front's Record-Route without a node. Every message sent is parsed
 * back and its fields checked.
 */
class KeptCallTest {

    private static final InetSocketAddress CALLER = new InetSocketAddress("127.0.0.1", 40001);
    private static final InetSocketAddress FIRST = new InetSocketAddress("127.0.0.1", 40010);
    private static final InetSocketAddress SECOND = new InetSocketAddress("127.0.0.1", 40011);
    private static final long BRANCH_TIMEOUT = 20_000;

    private final KeptFront front = new KeptFront(BRANCH_TIMEOUT);
    private final ScriptedTimers clock = front.clock;
    private final FastPathTest.Recorder outlet = front.outlet;
    private final FrontStats stats = front.stats;
    private final Forwarder forwarder = front.forwarder;

    @Test
    void theNodeIsAskedForTheContactsAndTheFrontRingsThemInQOrder() {
        fromCaller(invite("c1", "b1"));
        SIPResponse trying = toCaller(0);
        assertEquals(100, trying.getStatusCode(), "the front answers 100 Trying itself");
        SIPRequest lookup = front.toNode(0);
        assertEquals("INVITE", lookup.getMethod());
        assertEquals("redirect", lookup.getHeader("Request-Disposition").toString().split(":")[1].strip());
        assertTrue(lookup.getTopmostVia().getBranch().startsWith(KeptCalls.BRANCH_PREFIX));

        fromNode(redirect(lookup, "<sip:bob@127.0.0.1:40011>;q=0.5, <sip:bob@127.0.0.1:40010>;q=1.0"));
        SIPRequest ack = front.toNode(1);
        assertEquals("ACK", ack.getMethod(), "the 302 is ACKed hop by hop");
        assertEquals("node-tag", ack.getToTag());
        SIPRequest first = front.sentTo(FIRST, 0);
        assertEquals("sip:bob@127.0.0.1:40010", first.getRequestURI().toString(), "q=1.0 rings first");
        assertTrue(first.getHeader("Record-Route").toString().contains(KeptCalls.USER + "@127.0.0.1:5060;lr"),
                "the front record-routes itself: " + first);
        assertEquals(69, first.getMaxForwards().getMaxForwards());

        fromContact(answer(first, 486, "busy"));
        assertEquals("ACK", front.sentTo(FIRST, 1).getMethod(), "the 486 is ACKed by the front");
        SIPRequest second = front.sentTo(SECOND, 0);
        assertEquals("sip:bob@127.0.0.1:40011", second.getRequestURI().toString());
        assertEquals(1, countToCaller(), "the 486 is kept while a contact is left");

        fromContact(answer(second, 180, "b2"));
        fromContact(answer(second, 200, "b2"));
        SIPResponse ringing = toCaller(1);
        SIPResponse ok = toCaller(2);
        assertEquals(180, ringing.getStatusCode());
        assertEquals(200, ok.getStatusCode());
        assertEquals(1, ok.getViaHeaders().size(), "the front's Via is off the answer");
        assertEquals("z9hG4bK-b1", ok.getTopmostVia().getBranch());
        assertEquals(1, stats.statefulCalls());
        assertEquals(2, outlet.toNode.size(), "the node saw the INVITE and the ACK of its 302, nothing else");
    }

    @Test
    void aRetransmittedInviteIsAbsorbedAndItsLastProvisionalSentAgain() {
        fromCaller(invite("c2", "b1"));
        SIPRequest lookup = front.toNode(0);
        fromNode(redirect(lookup, "<sip:bob@127.0.0.1:40010>"));
        SIPRequest first = front.sentTo(FIRST, 0);
        fromContact(answer(first, 180, "b1"));
        int toNode = outlet.toNode.size();
        int atFirst = front.countSentTo(FIRST);
        fromCaller(invite("c2", "b1"));
        assertEquals(toNode, outlet.toNode.size(), "the retransmission reaches no node");
        assertEquals(atFirst, front.countSentTo(FIRST), "nor the contact");
        assertEquals(180, toCaller(countToCaller() - 1).getStatusCode(), "the 180 is sent again");
    }

    @Test
    void noContactTakingTheCallGivesTheCallerTheBestFailure() {
        fromCaller(invite("c3", "b1"));
        fromNode(redirect(front.toNode(0), "<sip:bob@127.0.0.1:40010>;q=1, <sip:bob@127.0.0.1:40011>;q=0.5"));
        fromContact(answer(front.sentTo(FIRST, 0), 503, "x"));
        fromContact(answer(front.sentTo(SECOND, 0), 486, "y"));
        SIPResponse best = toCaller(countToCaller() - 1);
        assertEquals(486, best.getStatusCode(), "a 4xx is better than a 503 (which would be a 500)");
        fromCaller(ackOf(best, "c3", "b1"));
        int answers = countToCaller();
        clock.advance(8_000);
        assertEquals(answers, countToCaller(), "once ACKed, the 486 is not sent again (Timer G stopped)");
    }

    @Test
    void aContactSilentForTheBranchTimeOutGivesWayToTheNext() {
        fromCaller(invite("c4", "b1"));
        fromNode(redirect(front.toNode(0), "<sip:bob@127.0.0.1:40010>;q=1, <sip:bob@127.0.0.1:40011>;q=0.5"));
        assertNotNull(front.sentTo(FIRST, 0));
        clock.advance(BRANCH_TIMEOUT - 1);
        assertEquals(0, front.countSentTo(SECOND));
        clock.advance(1);
        SIPRequest second = front.sentTo(SECOND, 0);
        assertEquals("INVITE", second.getMethod());
        int sentToFirst = front.countSentTo(FIRST);
        clock.advance(10_000);
        assertEquals(sentToFirst, front.countSentTo(FIRST), "the silent contact is no longer sent the INVITE again");
        fromContact(answer(second, 200, "s"));
        assertEquals(200, toCaller(countToCaller() - 1).getStatusCode());
    }

    @Test
    void aCancelledCallCancelsTheRingingContactAndEndsWith487() {
        fromCaller(invite("c5", "b1"));
        fromNode(redirect(front.toNode(0), "<sip:bob@127.0.0.1:40010>;q=1, <sip:bob@127.0.0.1:40011>;q=0.5"));
        SIPRequest first = front.sentTo(FIRST, 0);
        fromContact(answer(first, 180, "r"));
        fromCaller(request("CANCEL", "c5", "b1", "sip:bob@example.com", 1, null));
        SIPResponse cancelled = toCaller(countToCaller() - 1);
        assertEquals(200, cancelled.getStatusCode());
        assertEquals("CANCEL", cancelled.getCSeq().getMethod());
        SIPRequest cancel = front.sentTo(FIRST, front.countSentTo(FIRST) - 1);
        assertEquals("CANCEL", cancel.getMethod());
        assertEquals(first.getTopmostVia().getBranch(), cancel.getTopmostVia().getBranch(), "§9.1: the INVITE's branch");
        fromContact(answer(cancel, 200, "r"));
        fromContact(answer(first, 487, "r"));
        assertEquals(487, toCaller(countToCaller() - 1).getStatusCode());
        assertEquals(0, front.countSentTo(SECOND), "no other contact is tried after a CANCEL");
    }

    @Test
    void aNodeThatDoesNotRedirectHasItsAnswerPassedOn() {
        fromCaller(invite("c6", "b1"));
        fromNode(answerTo(front.toNode(0), 404, "Not Found", "n"));
        assertEquals(404, toCaller(countToCaller() - 1).getStatusCode());
        assertEquals("ACK", front.toNode(1).getMethod());
    }

    @Test
    void aContactBehindAnEdgeProxyIsLeftToTheNode() {
        fromCaller(invite("c7", "b1"));
        SIPRequest lookup = front.toNode(0);
        fromNode(redirect(lookup, "<sip:bob@127.0.0.1:40010?Route=%3Csip:tok%40127.0.0.1:5060%3Blr%3E>"));
        SIPRequest proxied = front.toNode(2);
        assertEquals("INVITE", proxied.getMethod());
        assertNull(proxied.getHeader("Request-Disposition"), "the node proxies it this time");
        assertEquals(lookup.getRequestURI(), proxied.getRequestURI());
        assertEquals(0, front.countSentTo(FIRST));
    }

    @Test
    void theDialogsLaterRequestsGoByTheFrontsRouteAndAByeRetransmittedIsAnsweredByTheFront() {
        fromCaller(invite("c8", "b1"));
        fromNode(redirect(front.toNode(0), "<sip:bob@127.0.0.1:40010>"));
        SIPRequest first = front.sentTo(FIRST, 0);
        fromContact(answer(first, 200, "t8"));
        int nodeMessages = outlet.toNode.size();
        String route = "<sip:" + KeptCalls.USER + "@127.0.0.1:5060;lr>";
        fromCaller(request("ACK", "c8", "a1", "sip:bob@127.0.0.1:40010", 1, "t8", route));
        SIPRequest ack = front.sentTo(FIRST, 1);
        assertEquals("ACK", ack.getMethod());
        assertNull(ack.getHeader("Route"), "the front's own Route is consumed");
        fromCaller(request("BYE", "c8", "y1", "sip:bob@127.0.0.1:40010", 2, "t8", route));
        SIPRequest bye = front.sentTo(FIRST, 2);
        assertEquals("BYE", bye.getMethod());
        fromContact(answer(bye, 200, "t8"));
        assertEquals(200, toCaller(countToCaller() - 1).getStatusCode());
        int answers = countToCaller();
        fromCaller(request("BYE", "c8", "y1", "sip:bob@127.0.0.1:40010", 2, "t8", route));
        assertEquals(answers + 1, countToCaller(), "the retransmitted BYE is answered by the front");
        assertEquals(3, front.countSentTo(FIRST), "and does not reach the callee");
        assertEquals(nodeMessages, outlet.toNode.size(), "no node sees the dialog");
    }

    // --- messages ---

    private static String invite(String callId, String branch) {
        return request("INVITE", callId, branch, "sip:bob@example.com", 1, null);
    }

    private static String request(String method, String callId, String branch, String uri, int cseq, String toTag,
            String... routes) {
        return KeptFront.request(method, callId, branch, uri, cseq, toTag, "UDP", 40001, routes);
    }

    private static String ackOf(SIPResponse failure, String callId, String branch) {
        return request("ACK", callId, branch, "sip:bob@example.com", 1, failure.getToTag());
    }

    private static SIPResponse redirect(SIPRequest lookup, String contacts) {
        String text = new String(answerTo(lookup, 302, "Moved Temporarily", "node-tag").encodeAsBytes("UDP"),
                StandardCharsets.UTF_8);
        return (SIPResponse) parse(text.replace("Content-Length:", "Contact: " + contacts + "\r\nContent-Length:")
                .getBytes(StandardCharsets.UTF_8));
    }

    private static SIPResponse answer(SIPRequest request, int status, String toTag) {
        return answerTo(request, status, status == 200 ? "OK" : "Answer", toTag);
    }

    private static SIPResponse answerTo(SIPRequest request, int status, String reason, String toTag) {
        SIPResponse response = request.createResponse(status, reason);
        try {
            if (status > 100 && response.getToTag() == null) {
                response.getTo().setTag(toTag);
            }
            if (status / 100 == 2 && request.getMethod().equals("INVITE")) {
                response.addHeader(new gov.nist.javax.sip.header.HeaderFactoryImpl().createHeader("Contact",
                        "<sip:bob@127.0.0.1:40010>"));
            }
        } catch (ParseException e) {
            throw new AssertionError(e);
        }
        return reparse(response);
    }

    private static SIPResponse reparse(SIPResponse response) {
        return (SIPResponse) parse(response.encodeAsBytes("UDP"));
    }

    private static SIPMessage parse(byte[] bytes) {
        return KeptFront.parse(bytes);
    }

    // --- the forwarder's inputs ---

    private void fromCaller(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (!forwarder.onRequest(bytes, CALLER, Destination.UDP)) {
            forwarder.onRequest((SIPRequest) parse(bytes), CALLER, Destination.UDP);
        }
    }

    private void fromNode(SIPResponse response) {
        deliver(response);
    }

    private void fromContact(SIPResponse response) {
        deliver(response);
    }

    private void deliver(SIPResponse response) {
        byte[] bytes = response.encodeAsBytes("UDP");
        if (!forwarder.onResponse(bytes)) {
            forwarder.onResponse((SIPResponse) parse(bytes));
        }
    }

    // --- what the front sent ---

    private SIPResponse toCaller(int i) {
        return (SIPResponse) front.sentTo(CALLER).get(i);
    }

    private int countToCaller() {
        return front.sentTo(CALLER).size();
    }

    @Test
    void aKeptCallsMessagesAreReadWhereTheyLieWithoutJainSipsParser() {
        assertTrue(forwarder.onRequest(invite("c9", "b1").getBytes(StandardCharsets.UTF_8), CALLER, Destination.UDP),
                "a new INVITE the front keeps is taken by the lazy path, where its transactions start");
        assertEquals(100, toCaller(0).getStatusCode());
        SIPRequest lookup = front.toNode(0);
        assertTrue(forwarder.onResponse(redirect(lookup, "<sip:bob@127.0.0.1:40010>").encodeAsBytes("UDP")),
                "the node's 302 too");
        SIPRequest first = front.sentTo(FIRST, 0);
        assertTrue(forwarder.onResponse(answer(first, 180, "b9").encodeAsBytes("UDP")), "and the callee's answers");
        assertEquals(180, toCaller(1).getStatusCode());
    }
}
