package org.p2psip.front.relay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sip.header.RouteHeader;
import javax.sip.header.ViaHeader;
import org.junit.jupiter.api.Test;
import org.p2psip.front.calls.ExecutorTimers;
import org.p2psip.front.calls.KeptCalls;
import org.p2psip.front.nodes.AffinityTable;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.nodes.Nodes;
import org.p2psip.front.policies.Policies;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.Backlog;
import org.p2psip.front.wire.BacklogTest;
import org.p2psip.front.wire.Branches;
import org.p2psip.front.wire.Listeners;
import org.p2psip.front.wire.Destination;
import org.p2psip.front.wire.SipParser;

/**
 * The fast path (lazy read and splice) against JAIN-SIP's path, the reference: the same bytes go to
 * two forwarders, one each way, and what they send is parsed by JAIN-SIP and compared header by
 * header. What the fast path must leave alone it must refuse, with nothing done.
 */
class FastPathTest {

    private static final InetSocketAddress SELF = new InetSocketAddress("127.0.0.1", 5060);
    private static final int TLS_PORT = 5061;
    private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 40001);

    /** An outlet that keeps what it is given. */
    static final class Recorder implements Destination {
        final List<byte[]> toNode = new ArrayList<>();
        final List<byte[]> toClient = new ArrayList<>();
        final List<InetSocketAddress> clientAddresses = new ArrayList<>();
        final List<Long> connections = new ArrayList<>();
        /** Connections of a transport other than TCP (UDP is connection 0). */
        final Map<Long, String> transports = new HashMap<>();

        @Override
        public void toNode(Node node, byte[] message) {
            toNode.add(message);
        }

        @Override
        public void toClient(long connection, InetSocketAddress address, byte[] message) {
            toClient.add(message);
            clientAddresses.add(address);
            connections.add(connection);
        }

        /** Connections that have closed. */
        final java.util.Set<Long> closed = new java.util.HashSet<>();

        @Override
        public String transport(long connection) {
            return transports.getOrDefault(connection, connection == UDP ? "UDP" : "TCP");
        }

        @Override
        public boolean open(long connection) {
            return connection != UDP && !closed.contains(connection);
        }
    }

    /** The forwarder's timers: only stream clients' requests are retransmitted, and these tests send over UDP. */
    static final java.util.concurrent.ScheduledExecutorService TIMERS =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "fast-path-test-timers");
                thread.setDaemon(true);
                return thread;
            });

    /** A forwarder with one node, up, and what it sent. */
    static final class Side {
        final Recorder outlet = new Recorder();
        final Backlog backlog = new Backlog();
        final Forwarder forwarder;

        Side() {
            var nodes = new Nodes(List.of(new InetSocketAddress("127.0.0.1", 5070)));
            nodes.probeAnswered(Nodes.probeCallId(nodes.all().get(0)), 200);
            var listeners = new Listeners(SELF, TLS_PORT);
            var stats = new FrontStats();
            var kept = new KeptCalls(listeners, outlet, new ExecutorTimers(TIMERS), Runnable::run, stats, nodes, 5,
                    30_000, 180_000, 100);
            forwarder = new Forwarder(listeners, nodes, Policies.named("rr", 1.75), new AffinityTable(1_000_000_000_000L, 100),
                    new Transactions(100), outlet, stats, TIMERS, kept, null, backlog);
        }
    }

    private static final String REGISTER = "REGISTER sip:example.com SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:40001;branch=z9hG4bK-1;rport\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@example.com>;tag=a1\r\n"
            + "To: <sip:alice@example.com>\r\n"
            + "Call-ID: reg-1@127.0.0.1\r\n"
            + "CSeq: 1 REGISTER\r\n"
            + "Contact: <sip:alice@127.0.0.1:40001>\r\n"
            + "Expires: 3600\r\n"
            + "Content-Length: 0\r\n\r\n";

    @Test
    void aPlainRegisterGoesOutAsJainSipWritesIt() throws Exception {
        assertSameRequest(REGISTER, CLIENT);
    }

    @Test
    void aClientBehindAnotherAddressGetsReceivedAndRport() throws Exception {
        assertSameRequest(REGISTER, new InetSocketAddress("10.1.2.3", 7777));
        assertSameRequest(REGISTER.replace(";rport", ";received=10.9.9.9;rport=1"), new InetSocketAddress("10.1.2.3", 7777));
        assertSameRequest(REGISTER.replace("127.0.0.1:40001;", "client.example.com:5062;"), CLIENT);
    }

    @Test
    void compactFormsAndLowerCaseNamesAreRead() throws Exception {
        String compact = REGISTER.replace("Via:", "v:").replace("From:", "f :").replace("To:", "t:")
                .replace("Call-ID:", "i:").replace("Contact:", "m:").replace("Content-Length:", "l:")
                .replace("Max-Forwards:", "max-forwards:").replace("CSeq:", "cseq:");
        assertSameRequest(compact, CLIENT);
    }

    @Test
    void foldedHeadersAreReadUnfolded() throws Exception {
        String folded = REGISTER.replace("To: <sip:alice@example.com>", "To:\r\n <sip:alice@example.com>\r\n\t;tag=x9")
                .replace("Expires: 3600", "Subject: a\r\n  long subject");
        assertSameRequest(folded, CLIENT);
        // A folded top Via is rewritten by the reference path only.
        assertFallsBack(REGISTER.replace("Via: SIP/2.0/UDP", "Via:\r\n SIP/2.0/UDP"));
    }

    @Test
    void severalViasInOneLineKeepTheirOrder() throws Exception {
        String two = REGISTER.replace(";rport\r\n", ";rport , SIP/2.0/UDP 10.0.0.2:5070;branch=z9hG4bK-2;received=10.0.0.3\r\n"
                + "Via: SIP/2.0/TCP 10.0.0.4;branch=z9hG4bK-3\r\n");
        assertSameRequest(two, new InetSocketAddress("10.1.2.3", 7777));
    }

    @Test
    void aRouteToTheFrontIsConsumedAndOthersKept() throws Exception {
        String mine = "Route: <sip:127.0.0.1:5060;lr>\r\n";
        String mineFirst = "Route: <sip:127.0.0.1:5060;lr>,  <sip:10.0.0.9;lr>\r\n";
        String other = "Route: <sip:10.0.0.9;lr>, <sip:127.0.0.1:5060;lr>\r\nRoute: <sip:10.0.0.8;lr>\r\n";
        for (String route : List.of(mine, mineFirst, other)) {
            assertSameRequest(REGISTER.replace("Expires", route + "Expires"), CLIENT);
        }
        // A display name is left to the reference path.
        assertFallsBack(REGISTER.replace("Expires", "Route: \"front\" <sip:127.0.0.1:5060;lr>\r\nExpires"));
        assertSameRequest(REGISTER.replace("Expires", "Route: <sip:127.0.0.1;lr>\r\nExpires"), CLIENT);
    }

    @Test
    void anInviteWithABodyKeepsItsBody() throws Exception {
        String sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 0\r\n";
        String invite = REGISTER.replace("REGISTER", "INVITE").replace("Expires: 3600\r\n", "Content-Type: application/sdp\r\n")
                .replace("Content-Length: 0", "Content-Length: " + sdp.length()) + sdp;
        assertSameRequest(invite, CLIENT);
    }

    @Test
    void invalidRequestsAreAnsweredFromTheirBytesAndOddOnesGoToTheReference() throws Exception {
        Map<String, String> missing = Map.of("Call-ID: reg-1@127.0.0.1\r\n", "Missing Call-ID Header",
                "CSeq: 1 REGISTER\r\n", "Missing CSeq Header", "From: <sip:alice@example.com>;tag=a1\r\n",
                "Missing From Header", "To: <sip:alice@example.com>\r\n", "Missing To Header");
        for (var header : missing.entrySet()) {
            String bad = REGISTER.replace(header.getKey(), "");
            assertRefused(bad, 400, header.getValue());
            assertEquals(400, referenceAnswer(bad).getStatusCode(), "JAIN-SIP's path, were it reached: " + header);
        }
        assertRefused(REGISTER.replace("CSeq: 1 REGISTER", "CSeq: 1 OPTIONS"), 400, "CSeq Method Does Not Match");
        assertRefused(REGISTER.replace("Content-Length: 0", "Content-Length: 5"), 400, "Body Shorter Than Content-Length");
        assertRefused(REGISTER.replace(" SIP/2.0\r\nVia", " SIP/3.0\r\nVia"), 505, "Version Not Supported");
        assertRefused(REGISTER.replace("REGISTER sip:example.com", "REGISTER im:example.com"), 416, "Unsupported URI Scheme");
        String spent = REGISTER.replace("Max-Forwards: 70", "Max-Forwards: 0");
        assertFallsBack(spent);
        SIPResponse tooMany = referenceAnswer(spent);
        assertEquals("483 Too Many Hops", tooMany.getStatusCode() + " " + tooMany.getReasonPhrase(), "the nodes' words");
        assertFallsBack(REGISTER.replace("Max-Forwards: 70\r\n", ""));
        assertFallsBack(REGISTER.replace("\r\n", "\n"));
        assertFallsBack(REGISTER.replace("z9hG4bK-1", "old-style"));
    }

    private static void assertRefused(String text, int status, String reason) throws ParseException {
        var fast = new Side();
        assertTrue(fast.forwarder.onRequest(bytes(text), CLIENT, Destination.UDP), text);
        assertTrue(fast.outlet.toNode.isEmpty(), "nothing to a node: " + text);
        SIPResponse answer = (SIPResponse) parse(fast.outlet.toClient.get(0));
        assertEquals(status + " " + reason, answer.getStatusCode() + " " + answer.getReasonPhrase());
        assertEquals(List.of(CLIENT), fast.outlet.clientAddresses, "answered at the source (rport)");
    }

    @Test
    void whileTheFrontIsBehindItsSocketNewRequestsAre503FromTheirBytesAndDialogsStillReachTheirNode() throws Exception {
        var side = new Side();
        BacklogTest.behind(side.backlog, 40); // every new request shed
        assertTrue(side.forwarder.onRequest(bytes(REGISTER), CLIENT, Destination.UDP));
        assertTrue(side.forwarder.onRequest(bytes(REGISTER), CLIENT, Destination.UDP), "its retransmission");
        assertTrue(side.outlet.toNode.isEmpty(), "no node hears of a shed request");
        SIPResponse answer = (SIPResponse) parse(side.outlet.toClient.get(0));
        assertEquals(503, answer.getStatusCode());
        assertEquals(5, ((javax.sip.header.RetryAfterHeader) answer.getHeader("Retry-After")).getRetryAfter());
        assertEquals(List.of(CLIENT, CLIENT), side.outlet.clientAddresses);
        assertArrayEquals(side.outlet.toClient.get(0), side.outlet.toClient.get(1), "the same answer again");

        String bye = REGISTER.replace("REGISTER sip:example.com", "BYE sip:alice@127.0.0.1:40001")
                .replace("To: <sip:alice@example.com>", "To: <sip:alice@example.com>;tag=b1")
                .replace("CSeq: 1 REGISTER", "CSeq: 2 BYE").replace("branch=z9hG4bK-1", "branch=z9hG4bK-2");
        assertTrue(side.forwarder.onRequest(bytes(bye), CLIENT, Destination.UDP));
        assertEquals(1, side.outlet.toNode.size(), "a request in a dialog finishes work begun: forwarded");

        var streamed = (gov.nist.javax.sip.message.SIPRequest) parse(bytes(REGISTER.replace("SIP/2.0/UDP", "SIP/2.0/TCP")
                .replace("branch=z9hG4bK-1", "branch=z9hG4bK-3")));
        side.forwarder.onRequest(streamed, CLIENT, 7L);
        assertEquals(503, ((SIPResponse) parse(side.outlet.toClient.get(2))).getStatusCode(), "shed on every transport");
        assertEquals(1, side.outlet.toNode.size());
    }

    @Test
    void anExtensionMethodKeepsItsCaseOnBothPaths() throws Exception {
        String odd = REGISTER.replace("REGISTER sip:example.com", "~Odd.Method-1 sip:bob@example.com")
                .replace("CSeq: 1 REGISTER", "CSeq: 1 ~Odd.Method-1");
        var fast = new Side();
        assertTrue(fast.forwarder.onRequest(bytes(odd), CLIENT, Destination.UDP), "the fast path takes any method but four");
        String spliced = new String(fast.outlet.toNode.get(0), StandardCharsets.ISO_8859_1);
        assertTrue(spliced.startsWith("~Odd.Method-1 sip:") && spliced.contains("\r\nCSeq: 1 ~Odd.Method-1\r\n"), spliced);
        var reference = new Side();
        reference.forwarder.onRequest((SIPRequest) parse(bytes(odd)), CLIENT, Destination.UDP);
        String written = new String(reference.outlet.toNode.get(0), StandardCharsets.ISO_8859_1);
        assertTrue(written.contains("\r\nCSeq: 1 ~Odd.Method-1\r\n"), "JAIN-SIP's path, its CSeq given its case back: " + written);
        assertFallsBack(odd.replace("~Odd.Method-1", "SUBSCRIBE"));
    }

    @Test
    void answersLoseTheFrontsViaAsJainSipWouldHaveIt() throws Exception {
        var fast = new Side();
        assertTrue(fast.forwarder.onRequest(bytes(REGISTER), new InetSocketAddress("10.1.2.3", 7777), Destination.UDP));
        SIPRequest forwarded = (SIPRequest) parse(fast.outlet.toNode.get(0));
        String ok = new String(forwarded.createResponse(200).encodeAsBytes("UDP"), StandardCharsets.ISO_8859_1);
        assertTrue(ok.contains(",SIP/2.0/UDP"), "JAIN-SIP writes both Vias in one line");
        assertSameResponse(ok);
        // And each in its own line, compact.
        assertSameResponse(ok.replace(",SIP/2.0/UDP", "\r\nv: SIP/2.0/UDP"));
        // One not for the front is left to the reference path, which drops and counts it.
        assertFalse(new Side().forwarder.onResponse(bytes(ok.replace(Branches.PREFIX, "z9hG4bK-else-"))));
    }

    @Test
    void theUdpSocketsReaderGivesAnAnswerToTheAnswersFastPath() throws Exception {
        var fast = new Side();
        assertTrue(fast.forwarder.onRequest(bytes(REGISTER), CLIENT, Destination.UDP));
        SIPRequest forwarded = (SIPRequest) parse(fast.outlet.toNode.get(0));
        byte[] ok = forwarded.createResponse(200).encodeAsBytes("UDP");
        var stats = new FrontStats();
        assertTrue(new Inbound(fast.forwarder, stats).acceptRaw(ok, new InetSocketAddress("127.0.0.1", 5070), Destination.UDP),
                "an answer is read as an answer, not left to JAIN-SIP after failing as a request");
        assertEquals(1, fast.outlet.toClient.size(), "the answer went on to the client");
        assertEquals(0, stats.unparsable.sum());
    }

    /** A TLS client's answer is spliced as a UDP or TCP client's is: its Via names TLS, the way it goes back. */
    @Test
    void anAnswerToATlsClientKeepsItsTlsViaOnEitherPath() throws Exception {
        long connection = 7;
        var fast = new Side();
        fast.outlet.transports.put(connection, "TLS");
        String overTls = REGISTER.replace("SIP/2.0/UDP 127.0.0.1:40001", "SIP/2.0/TLS 127.0.0.1:40001")
                .replace("sip:example.com", "sips:example.com");
        fast.forwarder.onRequest((SIPRequest) parse(bytes(overTls)), CLIENT, connection);
        SIPRequest forwarded = (SIPRequest) parse(fast.outlet.toNode.get(0));
        assertEquals("sips:example.com", forwarded.getRequestURI().toString(), "the Request-URI as the client wrote it");
        String ok = new String(forwarded.createResponse(200).encodeAsBytes("UDP"), StandardCharsets.ISO_8859_1);
        assertSameResponse(ok, Map.of(connection, "TLS"));
        assertTrue(fast.forwarder.onResponse(bytes(ok)), "the fast path takes an answer to a TLS client");
        assertEquals(List.of(connection), fast.outlet.connections, "back over the client's connection");
        SIPResponse answer = (SIPResponse) parse(fast.outlet.toClient.get(0));
        assertEquals(List.of("TLS 127.0.0.1:40001 {branch=z9hG4bK-1, rport=40001}"), vias(answer));
    }

    @Test
    void aRouteToTheFrontsTlsPortIsConsumedToo() throws Exception {
        assertSameRequest(REGISTER.replace("Expires", "Route: <sip:127.0.0.1:5061;lr>\r\nExpires"), CLIENT);
        for (String route : List.of("<sips:127.0.0.1;lr>", "<sip:127.0.0.1;transport=tls;lr>", "<sips:127.0.0.1:5061;lr>")) {
            var reference = new Side();
            reference.forwarder.onRequest((SIPRequest) parse(bytes(REGISTER.replace("Expires", "Route: " + route
                    + "\r\nExpires"))), CLIENT, Destination.UDP);
            SIPRequest forwarded = (SIPRequest) parse(reference.outlet.toNode.get(0));
            assertEquals(List.of(), headers(forwarded, RouteHeader.NAME), route + " names the front's TLS port");
        }
        var reference = new Side();
        reference.forwarder.onRequest((SIPRequest) parse(bytes(REGISTER.replace("Expires",
                "Route: <sips:127.0.0.1:5062;lr>\r\nExpires"))), CLIENT, Destination.UDP);
        assertEquals(1, headers((SIPRequest) parse(reference.outlet.toNode.get(0)), RouteHeader.NAME).size(),
                "a Route to another port is kept");
    }

    private static void assertSameResponse(String text) throws Exception {
        assertSameResponse(text, Map.of());
    }

    private static void assertSameResponse(String text, Map<Long, String> transports) throws Exception {
        var fast = new Side();
        var reference = new Side();
        fast.outlet.transports.putAll(transports);
        reference.outlet.transports.putAll(transports);
        assertTrue(fast.forwarder.onResponse(bytes(text)), "fast path refused " + text);
        reference.forwarder.onResponse((SIPResponse) parse(bytes(text)));
        assertEquals(reference.outlet.clientAddresses, fast.outlet.clientAddresses);
        assertEquals(reference.outlet.connections, fast.outlet.connections);
        SIPMessage expected = parse(reference.outlet.toClient.get(0));
        SIPMessage actual = parse(fast.outlet.toClient.get(0));
        assertEquals(vias(expected), vias(actual));
        assertEquals(expected.getCSeq().toString(), actual.getCSeq().toString());
        assertEquals(expected.getTo().toString(), actual.getTo().toString());
    }

    private static void assertSameRequest(String text, InetSocketAddress source) throws Exception {
        var fast = new Side();
        var reference = new Side();
        assertTrue(fast.forwarder.onRequest(bytes(text), source, Destination.UDP), "fast path refused " + text);
        reference.forwarder.onRequest((SIPRequest) parse(bytes(text)), source, Destination.UDP);
        assertEquals(1, reference.outlet.toNode.size());
        SIPRequest expected = (SIPRequest) parse(reference.outlet.toNode.get(0));
        SIPRequest actual = (SIPRequest) parse(fast.outlet.toNode.get(0));
        assertEquals(expected.getRequestLine().encode(), actual.getRequestLine().encode());
        assertEquals(vias(expected), vias(actual));
        assertEquals(expected.getMaxForwards().getMaxForwards(), actual.getMaxForwards().getMaxForwards());
        assertEquals(headers(expected, RouteHeader.NAME), headers(actual, RouteHeader.NAME));
        for (String name : List.of("Call-ID", "CSeq", "From", "To", "Contact", "Content-Type")) {
            assertEquals(headers(expected, name), headers(actual, name), name);
        }
        assertArrayEquals(expected.getRawContent(), actual.getRawContent());
        assertTrue(fast.outlet.toClient.isEmpty());
    }

    private static void assertFallsBack(String text) {
        var fast = new Side();
        assertFalse(fast.forwarder.onRequest(bytes(text), CLIENT, Destination.UDP), text);
        assertTrue(fast.outlet.toNode.isEmpty() && fast.outlet.toClient.isEmpty());
    }

    private static SIPResponse referenceAnswer(String text) throws ParseException {
        var reference = new Side();
        reference.forwarder.onRequest((SIPRequest) parse(bytes(text)), CLIENT, Destination.UDP);
        assertTrue(reference.outlet.toNode.isEmpty());
        return (SIPResponse) parse(reference.outlet.toClient.get(0));
    }

    /** Each Via as transport, sent-by and its parameters by lower-case name (JAIN-SIP may order them otherwise). */
    private static List<String> vias(SIPMessage message) {
        var out = new ArrayList<String>();
        var it = message.getHeaders(ViaHeader.NAME);
        while (it.hasNext()) {
            Via via = (Via) it.next();
            Map<String, String> params = new TreeMap<>();
            via.getParameterNames().forEachRemaining(n -> params.put(((String) n).toLowerCase(), via.getParameter((String) n)));
            out.add(via.getTransport().toUpperCase() + " " + via.getSentBy().encode() + " " + params);
        }
        return out;
    }

    private static List<String> headers(SIPMessage message, String name) {
        var out = new ArrayList<String>();
        message.getHeaders(name).forEachRemaining(h -> out.add(h.toString().trim()));
        return out;
    }

    private static SIPMessage parse(byte[] bytes) throws ParseException {
        return SipParser.parse(bytes, true);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }
}
