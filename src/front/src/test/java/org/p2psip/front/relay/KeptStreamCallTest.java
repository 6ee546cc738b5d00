package org.p2psip.front.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import javax.sip.header.RecordRouteHeader;
import org.junit.jupiter.api.Test;
import org.p2psip.front.calls.KeptCalls;
import org.p2psip.front.calls.ScriptedTimers;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.Destination;

/**
 * Kept calls over TCP and TLS, through the forwarder on the scripted clock, as {@link KeptCallTest}
 * drives them over UDP: a caller on a TCP connection (its answers back over that connection, no
 * retransmission towards it, the dialog's later requests down it) and a callee reached down the
 * flow named by its 302 contact's Path (rung over its connection, no Timer A, its answers read
 * from the stream where they lie); and connections that close.
 */
class KeptStreamCallTest {

    private static final InetSocketAddress CALLER = new InetSocketAddress("127.0.0.1", 40001);
    private static final InetSocketAddress CALLEE = new InetSocketAddress("127.0.0.1", 40010);
    private static final InetSocketAddress OTHER = new InetSocketAddress("127.0.0.1", 40011);
    private static final long CALLER_CONNECTION = 7;
    private static final long CALLEE_CONNECTION = 9;

    private final KeptFront front = new KeptFront(20_000);
    private final ScriptedTimers clock = front.clock;
    private final FastPathTest.Recorder outlet = front.outlet;
    private final FrontStats stats = front.stats;
    private final KeptCalls kept = front.kept;
    private final Forwarder forwarder = front.forwarder;

    @Test
    void aCallerOnTcpIsKeptAndHearsEveryAnswerOverItsConnectionOnce() {
        assertTrue(forwarder.keptFromStream(bytes(invite("s1", "TCP")), CALLER, CALLER_CONNECTION),
                "the caller's INVITE is kept, read where it lies");
        assertEquals(100, onConnection(CALLER_CONNECTION, 0).getStatusCode());
        SIPRequest lookup = front.toNode(0);
        assertEquals("redirect", lookup.getHeader("Request-Disposition").toString().split(":")[1].strip());

        fromNode(redirect(lookup, "<sip:bob@127.0.0.1:40010>"));
        SIPRequest ringing = front.sentTo(CALLEE, 0);
        List<String> recordRoutes = recordRoutes(ringing);
        assertEquals(2, recordRoutes.size(), "a leg over TCP: the front record-routes twice: " + ringing);
        assertFalse(recordRoutes.get(0).contains("flow="), "the callee's side, on top, reached over UDP");
        assertTrue(recordRoutes.get(1).contains(";flow=" + kept.flowTokens().token(CALLER_CONNECTION)),
                "the caller's side names its connection");

        fromUdp(answer(ringing, 486, "busy"));
        List<SIPResponse> answers = answersOn(CALLER_CONNECTION);
        assertEquals(List.of(100, 486), answers.stream().map(SIPResponse::getStatusCode).toList());
        clock.advance(40_000);
        assertEquals(2, answersOn(CALLER_CONNECTION).size(),
                "no Timer G towards a reliable transport: the 486 is sent once");
        assertEquals(0, front.countSentTo(CALLER), "nothing to the caller over UDP");
        assertEquals(1, stats.keptStreamCalls());
    }

    @Test
    void aCallerOnTcpGetsItsDialogsRequestsDownItsConnection() {
        forwarder.keptFromStream(bytes(invite("s2", "TCP")), CALLER, CALLER_CONNECTION);
        fromNode(redirect(front.toNode(0), "<sip:bob@127.0.0.1:40010>"));
        SIPRequest ringing = front.sentTo(CALLEE, 0);
        fromUdp(answer(ringing, 200, "t2"));
        SIPResponse ok = onConnection(CALLER_CONNECTION, 1);
        assertEquals(200, ok.getStatusCode());
        assertEquals("TCP", ok.getTopmostVia().getTransport(), "the caller's own Via, the front's taken off");

        List<String> routes = recordRoutes(ok);
        String calleeSide = routes.get(0);
        String callerSide = routes.get(1);
        int before = outlet.toClient.size();
        // the callee's BYE: its route set is the Record-Route as it came, the callee's side first
        fromUdp(request("BYE", "s2", "y1", "sip:alice@127.0.0.1:40001;transport=tcp", 2, "t2", "UDP", 40010,
                calleeSide, callerSide), CALLEE);
        SIPRequest bye = (SIPRequest) parse(outlet.toClient.get(before));
        assertEquals(CALLER_CONNECTION, outlet.connections.get(before), "down the caller's connection");
        assertEquals("BYE", bye.getMethod());
        assertEquals("TCP", bye.getTopmostVia().getTransport(), "the front's Via names the connection's transport");
        assertEquals(null, bye.getHeader("Route"), "both of the front's Routes consumed");
        clock.advance(10_000);
        assertEquals(before + 1, outlet.toClient.size(), "no Timer E down a reliable connection");

        forwarder.keptFromStream(bytes(answerText(bye, 200)), CALLER, CALLER_CONNECTION);
        SIPResponse byeOk = (SIPResponse) parse(outlet.toClient.get(before + 1));
        assertEquals(200, byeOk.getStatusCode());
        assertEquals(CALLEE, outlet.clientAddresses.get(before + 1), "the BYE's 200 back to the callee over UDP");

        // the caller's own BYE: its route set reversed, the caller's side first, in on its connection
        int next = outlet.toClient.size();
        assertTrue(forwarder.keptFromStream(bytes(request("BYE", "s2", "y2", "sip:bob@127.0.0.1:40010", 3, "t2",
                "TCP", 40001, callerSide, calleeSide)), CALLER, CALLER_CONNECTION));
        assertEquals(CALLEE, outlet.clientAddresses.get(next), "to the callee by its Request-URI");
        assertEquals("BYE", ((SIPRequest) parse(outlet.toClient.get(next))).getMethod());
        assertEquals(2, outlet.toNode.size(), "no node sees the dialog: the lookup and the 302's ACK only");
    }

    @Test
    void aCalleeOnAFlowIsRungDownItsConnectionWithoutRetransmissions() {
        fromUdp(invite("s3", "UDP"));
        SIPRequest lookup = front.toNode(0);
        fromNode(redirect(lookup, flowContact(CALLEE_CONNECTION)));
        List<SIPMessage> down = front.onConnection(CALLEE_CONNECTION);
        assertEquals(1, down.size(), "the INVITE goes down the callee's flow");
        SIPRequest ringing = (SIPRequest) down.get(0);
        assertEquals("sip:bob@192.168.1.20:5062;transport=tcp", ringing.getRequestURI().toString(),
                "the contact without its Route header");
        assertEquals(null, ringing.getHeader("Route"));
        assertEquals("TCP", ringing.getTopmostVia().getTransport());
        assertTrue(recordRoutes(ringing).get(0).contains(";flow=" + kept.flowTokens().token(CALLEE_CONNECTION)));
        clock.advance(8_000);
        assertEquals(1, front.onConnection(CALLEE_CONNECTION).size(), "no Timer A over a reliable transport");

        assertTrue(forwarder.keptFromStream(bytes(answerText(ringing, 180)), CALLEE, CALLEE_CONNECTION),
                "the callee's answers are read where they lie");
        forwarder.keptFromStream(bytes(answerText(ringing, 200)), CALLEE, CALLEE_CONNECTION);
        List<SIPResponse> toCaller = answersTo(CALLER);
        assertEquals(List.of(100, 180, 200), toCaller.stream().map(SIPResponse::getStatusCode).toList());
        assertEquals(1, stats.keptStreamCalls());

        List<String> routes = recordRoutes(toCaller.get(2));
        int before = front.onConnection(CALLEE_CONNECTION).size();
        fromUdp(request("BYE", "s3", "y3", "sip:bob@192.168.1.20:5062;transport=tcp", 2, "t", "UDP", 40001,
                routes.get(1), routes.get(0)));
        List<SIPMessage> after = front.onConnection(CALLEE_CONNECTION);
        assertEquals(before + 1, after.size(), "the caller's BYE goes down the callee's flow");
        SIPRequest bye = (SIPRequest) after.get(before);
        clock.advance(10_000);
        assertEquals(before + 1, front.onConnection(CALLEE_CONNECTION).size(), "once");
        forwarder.keptFromStream(bytes(answerText(bye, 200)), CALLEE, CALLEE_CONNECTION);
        assertEquals(200, answersTo(CALLER).get(3).getStatusCode());
    }

    @Test
    void overTlsBothEndsAreKeptAlikeWithTheFrontsViaNamingTls() {
        outlet.transports.put(CALLER_CONNECTION, "TLS");
        outlet.transports.put(CALLEE_CONNECTION, "TLS");
        assertTrue(forwarder.keptFromStream(bytes(invite("s6", "TLS")), CALLER, CALLER_CONNECTION));
        assertEquals(100, onConnection(CALLER_CONNECTION, 0).getStatusCode());
        fromNode(redirect(front.toNode(0), flowContact(CALLEE_CONNECTION)));
        SIPRequest ringing = (SIPRequest) front.onConnection(CALLEE_CONNECTION).get(0);
        assertEquals("TLS", ringing.getTopmostVia().getTransport(), "the callee's flow is TLS");
        List<String> routes = recordRoutes(ringing);
        assertTrue(routes.get(0).contains(";flow=" + kept.flowTokens().token(CALLEE_CONNECTION))
                && routes.get(1).contains(";flow=" + kept.flowTokens().token(CALLER_CONNECTION)),
                "each side names its own connection: " + routes);
        forwarder.keptFromStream(bytes(answerText(ringing, 200)), CALLEE, CALLEE_CONNECTION);
        SIPResponse ok = answersOn(CALLER_CONNECTION).get(1);
        assertEquals(200, ok.getStatusCode());
        assertEquals("TLS", ok.getTopmostVia().getTransport(), "the caller's own Via");

        int before = front.onConnection(CALLEE_CONNECTION).size();
        assertTrue(forwarder.keptFromStream(bytes(request("BYE", "s6", "y6", "sip:bob@192.168.1.20:5062;transport=tcp",
                2, "t", "TLS", 40001, routes.get(1), routes.get(0))), CALLER, CALLER_CONNECTION));
        assertEquals("BYE", ((SIPRequest) front.onConnection(CALLEE_CONNECTION).get(before)).getMethod(),
                "from one connection down the other");
        assertEquals(0, front.countSentTo(CALLEE) + front.countSentTo(CALLER), "nothing over UDP");
    }

    @Test
    void aFlowWhoseConnectionClosedGivesWayToTheNextContact() {
        outlet.closed.add(CALLEE_CONNECTION);
        fromUdp(invite("s4", "UDP"));
        fromNode(redirect(front.toNode(0), flowContact(CALLEE_CONNECTION) + ";q=1, <sip:bob@127.0.0.1:40011>;q=0.5"));
        assertEquals(0, front.onConnection(CALLEE_CONNECTION).size());
        assertEquals(1, stats.flowsFailed());
        SIPRequest second = front.sentTo(OTHER, 0);
        assertEquals("INVITE", second.getMethod());
        fromUdp(answer(second, 200, "o"));
        List<SIPResponse> answers = answersTo(CALLER);
        assertEquals(200, answers.get(answers.size() - 1).getStatusCode(), "the next contact takes the call");
    }

    @Test
    void aCallerWhoseConnectionClosedEndsItsCall() {
        forwarder.keptFromStream(bytes(invite("s5", "TCP")), CALLER, CALLER_CONNECTION);
        fromNode(redirect(front.toNode(0), "<sip:bob@127.0.0.1:40010>"));
        SIPRequest ringing = front.sentTo(CALLEE, 0);
        outlet.closed.add(CALLER_CONNECTION);
        int toCaller = answersOn(CALLER_CONNECTION).size();
        fromUdp(answer(ringing, 180, "r"));
        assertEquals(toCaller, answersOn(CALLER_CONNECTION).size(), "nothing more down a closed connection");
        assertEquals(1, stats.keptConnectionsLost());
        SIPRequest cancel = front.sentTo(CALLEE, 1);
        assertEquals("CANCEL", cancel.getMethod(), "the callee stops ringing for a caller who is gone");
        fromUdp(answer(cancel, 200, "r"));
        fromUdp(answer(ringing, 487, "r"));
        assertEquals("ACK", front.sentTo(CALLEE, 2).getMethod(), "the 487 is ACKed");
        assertEquals(0, kept.size(), "and the call forgotten");
    }

    // --- messages ---

    private static String invite(String callId, String transport) {
        return request("INVITE", callId, "b1", "sip:bob@example.com", 1, null, transport, 40001);
    }

    private static String request(String method, String callId, String branch, String uri, int cseq, String toTag,
            String transport, int port, String... routes) {
        return KeptFront.request(method, callId, branch, uri, cseq, toTag, transport, port, routes);
    }

    /** A contact registered over the front's flow on {@code connection}: its Path as a Route header in its URI. */
    private String flowContact(long connection) {
        return "<sip:bob@192.168.1.20:5062;transport=tcp?Route=%3Csip:" + kept.flowTokens().token(connection)
                + "%40127.0.0.1:5060%3Blr%3E>";
    }

    private static String redirect(SIPRequest lookup, String contacts) {
        return answerText(lookup, 302).replace("Content-Length:", "Contact: " + contacts + "\r\nContent-Length:");
    }

    private static String answer(SIPRequest request, int status, String toTag) {
        return answerText(request, status).replace(";tag=t", ";tag=" + toTag);
    }

    /** An answer to {@code request} with To tag "t" (none on a 100) and, on an INVITE's 2xx, a Contact. */
    private static String answerText(SIPRequest request, int status) {
        SIPResponse response = request.createResponse(status, status == 200 ? "OK" : "Answer");
        try {
            if (status > 100 && response.getToTag() == null) {
                response.getTo().setTag("t");
            }
            if (status / 100 == 2 && request.getMethod().equals("INVITE")) {
                response.addHeader(new gov.nist.javax.sip.header.HeaderFactoryImpl().createHeader("Contact",
                        "<sip:bob@127.0.0.1:40010>"));
            }
        } catch (ParseException e) {
            throw new AssertionError(e);
        }
        return new String(response.encodeAsBytes(request.getTopmostVia().getTransport()), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static SIPMessage parse(byte[] bytes) {
        return KeptFront.parse(bytes);
    }

    private static List<String> recordRoutes(SIPMessage message) {
        var values = new ArrayList<String>();
        for (var it = message.getHeaders(RecordRouteHeader.NAME); it.hasNext(); ) {
            values.add(((RecordRouteHeader) it.next()).getAddress().toString());
        }
        return values;
    }

    // --- the forwarder's inputs ---

    private void fromUdp(String text) {
        fromUdp(text, CALLER);
    }

    private void fromUdp(String text, InetSocketAddress source) {
        byte[] bytes = bytes(text);
        boolean answer = text.startsWith("SIP/2.0 ");
        if (answer ? forwarder.onResponse(bytes) : forwarder.onRequest(bytes, source, Destination.UDP)) {
            return;
        }
        if (answer) {
            forwarder.onResponse((SIPResponse) parse(bytes));
        } else {
            forwarder.onRequest((SIPRequest) parse(bytes), source, Destination.UDP);
        }
    }

    private void fromNode(String text) {
        fromUdp(text);
    }

    // --- what the front sent ---

    private SIPResponse onConnection(long connection, int i) {
        return (SIPResponse) front.onConnection(connection).get(i);
    }

    private List<SIPResponse> answersOn(long connection) {
        return front.onConnection(connection).stream().filter(SIPResponse.class::isInstance).map(SIPResponse.class::cast)
                .toList();
    }

    private List<SIPResponse> answersTo(InetSocketAddress address) {
        return front.sentTo(address).stream().filter(SIPResponse.class::isInstance).map(SIPResponse.class::cast).toList();
    }
}
