package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.header.RetryAfter;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.sip.header.RetryAfterHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.wire.Branches;
import org.p2psip.lazysip.ToTag;

/** The front over real loopback sockets, between test clients and small test nodes. */
class FrontTest {

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private List<TestNode> nodes(int n) throws InterruptedException {
        var nodes = new ArrayList<TestNode>();
        for (int i = 0; i < n; i++) {
            TestNode node = new TestNode();
            open.add(node);
            nodes.add(node);
        }
        return nodes;
    }

    private Front front(List<TestNode> nodes, Map<String, String> extra) throws InterruptedException {
        var values = new HashMap<String, String>(Map.of(
                FrontOptions.LISTEN.name(), "127.0.0.1:0",
                FrontOptions.NODES.name(), nodes.stream().map(TestNode::address).collect(Collectors.joining(",")),
                FrontOptions.POLICY.name(), "rr",
                FrontOptions.PROBE_INTERVAL.name(), "50ms",
                FrontOptions.PROBE_TIMEOUT.name(), "2s", // generous: the test machine is shared and busy
                FrontOptions.THREADS.name(), "1"));
        values.putAll(extra);
        Front front = Front.start(Config.of(values));
        open.add(front);
        Await.until(() -> front.nodes().stream().allMatch(Node::up), () -> "every node up: " + front.nodes());
        return front;
    }

    private TestClient client(Front front) throws Exception {
        TestClient client = new TestClient(front.address());
        open.add(client);
        return client;
    }

    @Test
    void everyRequestOfACallIdReachesTheNodeItsFirstRequestWentTo() throws Exception {
        List<TestNode> nodes = nodes(2);
        Front front = front(nodes, Map.of());
        TestClient client = client(front);
        for (String callId : List.of("call-a", "call-b", "call-c", "call-d")) {
            client.send("INVITE", callId, callId + "-1", 1, null);
            assertEquals(200, client.receive().getStatusCode());
            client.send("ACK", callId, callId + "-2", 1, "node");
            client.send("BYE", callId, callId + "-3", 2, "node");
            assertEquals(200, client.receive().getStatusCode());
        }
        for (String callId : List.of("call-a", "call-b", "call-c", "call-d")) {
            Await.until(() -> nodes.stream().mapToInt(n -> n.withCallId(callId).size()).sum() == 3,
                    () -> callId + ": INVITE, ACK and BYE at the nodes");
            long holders = nodes.stream().filter(n -> !n.withCallId(callId).isEmpty()).count();
            assertEquals(1, holders, callId + " was split across nodes");
        }
        assertEquals(6, nodes.get(0).received.size(), "round robin: two calls per node");
        assertEquals(6, nodes.get(1).received.size(), "round robin: two calls per node");
    }

    @Test
    void theFrontAddsItsViaToRequestsAndTakesItOffAnswers() throws Exception {
        List<TestNode> nodes = nodes(1);
        Front front = front(nodes, Map.of());
        TestClient client = client(front);
        client.send("REGISTER", "reg-1", "reg-1", 1, null);
        SIPResponse answer = client.receive();

        SIPRequest atNode = nodes.get(0).withCallId("reg-1").get(0);
        assertEquals(2, atNode.getViaHeaders().size(), "front's Via on top of the client's");
        Via frontVia = atNode.getTopmostVia();
        assertEquals(front.address().getPort(), frontVia.getPort());
        assertTrue(frontVia.getBranch().startsWith(Branches.PREFIX), frontVia.getBranch());
        Via clientVia = (Via) atNode.getViaHeaders().get(1);
        assertEquals(String.valueOf(client.port()), clientVia.getParameter(Via.RPORT), "rport filled in");

        assertEquals(200, answer.getStatusCode());
        assertEquals(1, answer.getViaHeaders().size(), "the front's Via is popped");
        assertEquals("z9hG4bKreg-1", answer.getTopmostVia().getBranch());
        assertEquals(0, front.openTransactions(), "the final answer closed the transaction");
        assertEquals(69, atNode.getMaxForwards().getMaxForwards(), "Max-Forwards decremented");

        client.sendRaw(TestClient.request("REGISTER", "reg-2", "reg-2", 1, null, client.port(), "UDP")
                .replace("Max-Forwards: 70\r\n", ""));
        assertEquals(200, client.receive().getStatusCode());
        assertEquals(69, nodes.get(0).withCallId("reg-2").get(0).getMaxForwards().getMaxForwards(),
                "a missing Max-Forwards is added (70) and decremented, not answered 400");
    }

    @Test
    void aCancelAndRetransmissionsCarryTheirInvitesBranchToTheNode() throws Exception {
        List<TestNode> nodes = nodes(1);
        nodes.get(0).silentFor.add("INVITE");
        Front front = front(nodes, Map.of());
        TestClient client = client(front);
        client.send("INVITE", "call-x", "inv", 1, null);
        client.send("INVITE", "call-x", "inv", 1, null); // retransmission
        client.send("CANCEL", "call-x", "inv", 1, null);
        assertEquals(200, client.receive().getStatusCode(), "the CANCEL answered");
        Await.until(() -> nodes.get(0).withCallId("call-x").size() == 3, () -> "INVITE twice and CANCEL at the node");
        List<String> branches = nodes.get(0).withCallId("call-x").stream().map(r -> r.getTopmostVia().getBranch())
                .distinct().toList();
        assertEquals(1, branches.size(), "one branch for the INVITE, its retransmission and its CANCEL: " + branches);
        assertEquals(1, front.nodes().get(0).invites(), "the retransmission is not a second transaction");
    }

    @Test
    void answersGoBackOnTheTcpConnectionTheRequestCameOn() throws Exception {
        List<TestNode> nodes = nodes(2);
        Front front = front(nodes, Map.of());
        TestClient client = client(front).overTcp();
        for (int i = 0; i < 4; i++) {
            client.send("REGISTER", "tcp-" + i, "tcp-" + i, 1, null);
            SIPResponse answer = client.receive();
            assertEquals(200, answer.getStatusCode());
            assertEquals("tcp-" + i, answer.getCallId().getCallId());
            assertEquals(1, answer.getViaHeaders().size());
        }
    }

    @Test
    void requestsOpenOnANodeThatDiesAreAnswered503WithRetryAfter() throws Exception {
        List<TestNode> nodes = nodes(1);
        TestNode node = nodes.get(0);
        node.silentFor.addAll(List.of("INVITE", "MESSAGE"));
        Front front = front(nodes, Map.of(FrontOptions.RETRY_AFTER.name(), "7"));
        TestClient client = client(front);
        client.send("INVITE", "dies-1", "dies-1", 1, null);
        client.send("MESSAGE", "dies-2", "dies-2", 1, null);
        Await.until(() -> node.received.size() == 2, () -> "both requests at the node");
        node.dead = true;

        var answers = new HashMap<String, SIPResponse>();
        for (int i = 0; i < 2; i++) {
            SIPResponse answer = client.receive();
            answers.put(answer.getCSeq().getMethod(), answer);
        }
        for (String method : List.of("INVITE", "MESSAGE")) {
            SIPResponse answer = answers.get(method);
            assertNotNull(answer, "no answer to the " + method);
            assertEquals(503, answer.getStatusCode(), method);
            assertEquals(7, ((RetryAfter) answer.getHeader(RetryAfterHeader.NAME)).getRetryAfter(), method);
            assertEquals(1, answer.getViaHeaders().size(), "the client's Via only");
            assertNotNull(answer.getToTag(), "a final answer of the front's own has a To tag");
        }
        assertEquals(0, front.nodes().get(0).transactions(), "the abandoned transactions no longer count");

        client.send("REGISTER", "dies-3", "dies-3", 1, null);
        assertEquals(503, client.receive().getStatusCode(), "no node up: 503 at once");
    }

    @Test
    void aNodeThatWasOnlySlowAnswersTooLateAndItsClientHearsOnlyThe503() throws Exception {
        List<TestNode> nodes = nodes(1);
        TestNode node = nodes.get(0);
        node.silentFor.add("REGISTER");
        Front front = front(nodes, Map.of());
        TestClient client = client(front);
        client.send("REGISTER", "slow-1", "slow-1", 1, null);
        Await.until(() -> node.received.size() == 1, () -> "the REGISTER at the node");
        node.dead = true; // silent past the probe time-out: found dead
        assertEquals(503, client.receive().getStatusCode());

        node.answer(node.received.get(0), 200); // alive after all
        Await.until(() -> front.stats().lateAnswersDropped() == 1, () -> "the late 200 dropped");
        client.send("REGISTER", "slow-2", "slow-2", 1, null);
        SIPResponse next = client.receive();
        assertEquals("slow-2", next.getCallId().getCallId(), "the client never got the late 200");
        assertEquals(503, next.getStatusCode(), "no node up");
    }

    @Test
    void aNodeWhoseProbesAre503GetsNoNewWorkUntilTheyAre200() throws Exception {
        List<TestNode> nodes = nodes(2);
        Front front = front(nodes, Map.of());
        TestClient client = client(front);
        nodes.get(1).probeStatus = 503; // starting, warming up or stopping: alive but not ready
        Await.until(() -> !front.nodes().get(1).up(), () -> "node 1 seen not ready");
        for (int i = 0; i < 6; i++) {
            client.send("REGISTER", "warm-" + i, "warm-" + i, 1, null);
            assertEquals(200, client.receive().getStatusCode());
        }
        assertEquals(0, nodes.get(1).received.size(), "a node that is not ready got new work");

        nodes.get(1).probeStatus = 200;
        Await.until(() -> front.nodes().get(1).up(), () -> "node 1 taken once ready");
        for (int i = 0; i < 6; i++) {
            client.send("REGISTER", "ready-" + i, "ready-" + i, 1, null);
            assertEquals(200, client.receive().getStatusCode());
        }
        assertEquals(3, nodes.get(1).received.size(), "round robin again over both nodes");
    }

    @Test
    void aNodeThatStopsAnsweringGetsNoNewWorkAndIsTakenBackWhenItAnswers() throws Exception {
        List<TestNode> nodes = nodes(2);
        Front front = front(nodes, Map.of());
        TestClient client = client(front);
        nodes.get(1).dead = true;
        Await.until(() -> !front.nodes().get(1).up(), () -> "node 1 seen down");
        for (int i = 0; i < 6; i++) {
            client.send("REGISTER", "down-" + i, "down-" + i, 1, null);
            assertEquals(200, client.receive().getStatusCode());
        }
        assertEquals(0, nodes.get(1).received.size(), "a dead node got new work");

        nodes.get(1).dead = false;
        Await.until(() -> front.nodes().get(1).up(), () -> "node 1 taken back");
        for (int i = 0; i < 6; i++) {
            client.send("REGISTER", "back-" + i, "back-" + i, 1, null);
            assertEquals(200, client.receive().getStatusCode());
        }
        assertEquals(3, nodes.get(1).received.size(), "round robin again over both nodes");
    }

    @Test
    void badInputIsCountedAndAnsweredOrDroppedAndTheFrontServesOn() throws Exception {
        List<TestNode> nodes = nodes(1);
        Front front = front(nodes, Map.of());
        TestClient client = client(front);

        client.sendRaw("this is not SIP\r\n\r\n");
        Await.until(() -> front.stats().unparsable() == 1, () -> "garbage counted");

        String noCallId = TestClient.request("REGISTER", "x", "nocid", 1, null, client.port(), "UDP")
                .replace("Call-ID: x\r\n", "");
        client.sendRaw(noCallId);
        SIPResponse answer = client.receive();
        assertEquals(400, answer.getStatusCode());
        assertEquals(1, front.stats().answered400());

        String noVia = TestClient.request("REGISTER", "novia", "novia", 1, null, client.port(), "UDP")
                .replaceFirst("Via: [^\r]*\r\n", "");
        client.sendRaw(noVia);
        Await.until(() -> front.stats().dropped() == 1, () -> "a request without Via dropped");

        String spent = TestClient.request("OPTIONS", "spent", "spent", 1, null, client.port(), "UDP")
                .replace("Max-Forwards: 70", "Max-Forwards: 0");
        client.sendRaw(spent);
        assertEquals(483, client.receive().getStatusCode());

        TestClient tcpClient = client(front).overTcp();
        tcpClient.sendRaw("\u0000\u0001 garbage without end of head and then some\r\n\r\n");
        Await.until(() -> front.stats().unparsable() == 2, () -> "garbage on TCP counted: " + front.stats().snapshot());

        client.send("REGISTER", "fine", "fine", 1, null);
        assertEquals(200, client.receive().getStatusCode(), "the front still serves");
        assertTrue(nodes.get(0).withCallId("novia").isEmpty() && nodes.get(0).withCallId("spent").isEmpty());
        assertEquals(1, nodes.get(0).received.size(), "only the good request reached the node");
    }

    @Test
    void requestsThatAreNotValidSipAreAnsweredByTheFrontOverUdpAndTcpAndReachNoNode() throws Exception {
        List<TestNode> nodes = nodes(1);
        Front front = front(nodes, Map.of());
        TestClient client = client(front);
        String register = TestClient.request("REGISTER", "v", "v1", 1, null, client.port(), "UDP");

        client.sendRaw(register.replace(" SIP/2.0\r\nVia", " SIP/7.0\r\nVia"));
        assertAnswer(client.receive(), 505, "Version Not Supported");
        client.sendRaw(register.replace("REGISTER sip:bob@example.com", "REGISTER urn:service:sos").replace("z9hG4bKv1", "z9hG4bKv2"));
        assertAnswer(client.receive(), 416, "Unsupported URI Scheme");
        client.sendRaw(register.replace("Max-Forwards: 70", "Max-Forwards: 300").replace("z9hG4bKv1", "z9hG4bKv3"));
        SIPResponse invalid = client.receive();
        assertAnswer(invalid, 400, "Invalid Max-Forwards");
        assertEquals("z9hG4bKv3", invalid.getTopmostVia().getBranch(), "the client's own Via, not the front's");
        assertNotNull(invalid.getToTag());
        assertEquals(1, front.stats().answered505());
        assertEquals(1, front.stats().answered416());
        assertEquals(1, front.stats().answered400());

        TestClient tcpClient = client(front).overTcp();
        String overTcp = TestClient.request("REGISTER", "t", "t1", 1, null, tcpClient.port(), "TCP");
        tcpClient.sendRaw(overTcp.replace(" SIP/2.0\r\nVia", " SIP/2.1\r\nVia"));
        assertAnswer(tcpClient.receive(), 505, "Version Not Supported");
        tcpClient.sendRaw(overTcp.replace("CSeq: 1 REGISTER", "CSeq: -1 REGISTER").replace("z9hG4bKt1", "z9hG4bKt2"));
        assertAnswer(tcpClient.receive(), 400, "Invalid CSeq");
        tcpClient.sendRaw(overTcp.replace(" SIP/2.0\r\nVia", " HTTP/1.1\r\nVia").replace("z9hG4bKt1", "z9hG4bKt3"));
        assertAnswer(tcpClient.receive(), 400, "Malformed Request-Line"); // a head JAIN-SIP cannot parse: heard, then closed
        Await.until(() -> front.stats().unparsable() == 1, () -> "a stream that cannot be framed on: " + front.stats().snapshot());

        client.send("REGISTER", "fine", "fine", 1, null);
        assertEquals(200, client.receive().getStatusCode(), "the front still serves");
        assertEquals(1, nodes.get(0).received.size(), "only the valid request reached the node: " + nodes.get(0).received);
    }

    private static void assertAnswer(SIPResponse answer, int status, String reason) {
        assertEquals(status + " " + reason, answer.getStatusCode() + " " + answer.getReasonPhrase());
    }

    /**
     * The counters come from real traffic: node 1 never answers INVITEs, so its INVITE transactions
     * stay open and tlwl sends every later call to node 0, whose transactions close at its answers;
     * its calls stay open until their BYEs are answered.
     */
    @Test
    void tlwlKeepsCountersFromRequestsSentAndFinalAnswersSeen() throws Exception {
        List<TestNode> nodes = nodes(2);
        nodes.get(1).silentFor.add("INVITE");
        Front front = front(nodes, Map.of(FrontOptions.POLICY.name(), "tlwl"));
        TestClient client = client(front);
        var answered = new ArrayList<String>();
        for (int i = 0; i < 6; i++) {
            String callId = "work-" + i;
            client.send("INVITE", callId, callId, 1, null);
            Await.until(() -> nodes.stream().anyMatch(n -> !n.withCallId(callId).isEmpty()), () -> callId + " forwarded");
            if (!nodes.get(0).withCallId(callId).isEmpty()) {
                assertEquals(200, client.receive().getStatusCode());
                answered.add(callId);
            }
        }
        Node fast = front.nodes().get(0);
        Node stuck = front.nodes().get(1);
        assertTrue(nodes.get(1).received.size() <= 1, "after one unanswered INVITE node 1 has more work left: "
                + nodes.get(1).received.size() + " INVITEs sent to it");
        assertEquals(nodes.get(1).received.size(), stuck.invites(), "open INVITE transactions on node 1");
        assertEquals(0, fast.transactions(), "node 0's answers closed its transactions");
        assertEquals(answered.size(), fast.calls(), "answered calls stay open until BYE");
        for (String callId : answered) {
            client.send("BYE", callId, callId + "-bye", 2, "node");
            assertEquals(200, client.receive().getStatusCode());
        }
        assertEquals(0, fast.calls(), "the answered BYEs ended the calls");
    }

    @Test
    void theFrontRemembersNoMoreCallIdsThanItsBound() throws Exception {
        List<TestNode> nodes = nodes(2);
        Front front = front(nodes, Map.of(FrontOptions.AFFINITY_MAX.name(), "5"));
        TestClient client = client(front);
        for (int i = 0; i < 30; i++) {
            client.send("REGISTER", "many-" + i, "many-" + i, 1, null);
            assertEquals(200, client.receive().getStatusCode());
            assertTrue(front.affinityEntries() <= 5, "affinity entries: " + front.affinityEntries());
        }
        assertEquals(0, front.openTransactions());
    }
}
