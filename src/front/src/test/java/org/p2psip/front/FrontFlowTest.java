package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;

/**
 * RFC 5626 flows through the front over real sockets: a client's REGISTER over TCP gets a Path
 * naming its connection; a node's request routed by that Path reaches the client down the same
 * connection, and the client's answer reaches the node; a gone connection is answered 430 at once;
 * CRLFCRLF keep-alives are answered.
 */
class FrontFlowTest {

    private final List<AutoCloseable> open = new ArrayList<>();
    private TestNode node;
    private Front front;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private void start() throws Exception {
        node = new TestNode();
        open.add(node);
        front = front("127.0.0.1:0", Map.of());
    }

    private Front front(String listen, Map<String, String> extra) throws Exception {
        var options = new java.util.HashMap<>(Map.of(FrontOptions.LISTEN.name(), listen,
                FrontOptions.NODES.name(), node.address(), FrontOptions.PROBE_INTERVAL.name(), "50ms",
                FrontOptions.PROBE_TIMEOUT.name(), "2s", FrontOptions.THREADS.name(), "1"));
        options.putAll(extra);
        Front started = Front.start(Config.of(options));
        open.add(started);
        Await.until(() -> started.nodes().get(0).up(), () -> "node up");
        return started;
    }

    @Test
    void twoFrontsShareOneListenAddressAndEachCarriesItsOwnFlowsFromItsInnerAddress() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.netty.channel.epoll.Epoll.isAvailable(), "SO_REUSEPORT needs epoll");
        node = new TestNode();
        open.add(node);
        String listen = "127.0.0.1:" + FreePort.onLoopback();
        Map<String, String> shared = Map.of(FrontOptions.REUSE_PORT.name(), "true", FrontOptions.INNER.name(), "127.0.0.1:0");
        Front first = front(listen, shared);
        Front second = front(listen, shared);
        front = first;
        List<TestClient> clients = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            clients.add(registered("shared-" + i, ""));
        }
        Await.until(() -> first.openConnections() + second.openConnections() == 24, () -> "24 connections held");
        assertTrue(first.openConnections() > 0 && second.openConnections() > 0,
                "the kernel spread the connections: " + first.openConnections() + " + " + second.openConnections());
        for (int i = 0; i < 24; i++) {
            String path = pathAtNode("shared-" + i);
            node.send(inviteFromNode("shared-call-" + i, path), innerOf(path));
            SIPMessage got = clients.get(i).receiveOverTcp();
            assertTrue(got instanceof SIPRequest r && r.getCallId().getCallId().equals("shared-call-" + i),
                    "client " + i + " got its INVITE through the front holding its connection: " + got);
        }
        assertEquals(24, first.stats().flowRequests() + second.stats().flowRequests());
    }

    /** The address a flow's Path names (the inner address of the front that holds it). */
    private static java.net.InetSocketAddress innerOf(String path) {
        String hostPort = path.substring(path.indexOf('@') + 1, path.indexOf(';'));
        int colon = hostPort.lastIndexOf(':');
        return new java.net.InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** Registers over a new TCP connection and returns the client and the Path the node received. */
    private TestClient registered(String callId, String contactParams) throws Exception {
        TestClient client = new TestClient(front.address()).overTcp();
        open.add(client);
        String register = TestClient.request("REGISTER", callId, callId, 1, null, client.port(), "TCP")
                .replace("Contact: <sip:alice@127.0.0.1:" + client.port() + ">",
                        "Contact: <sip:alice@127.0.0.1:" + client.port() + ";transport=tcp>" + contactParams);
        client.sendRaw(register);
        assertEquals(200, client.receive().getStatusCode());
        return client;
    }

    private String pathAtNode(String callId) {
        SIPRequest atNode = node.withCallId(callId).get(0);
        var path = atNode.getHeader("Path");
        assertNotNull(path, "the REGISTER reached the node with a Path: " + atNode);
        return path.toString().substring("Path:".length()).trim();
    }

    /** An INVITE as a node sends it to a registered binding: Route = the stored Path. */
    private String inviteFromNode(String callId, String route) {
        String nodeAddress = node.address();
        return "INVITE sip:alice@127.0.0.1:40000;transport=tcp SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + nodeAddress + ";branch=z9hG4bK-node-" + callId + "\r\n"
                + "Route: " + route + "\r\n"
                + "Max-Forwards: 69\r\n"
                + "From: <sip:bob@example.com>;tag=bob\r\n"
                + "To: <sip:alice@example.com>\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Contact: <sip:bob@" + nodeAddress + ">\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    @Test
    void aNodesRequestRoutedByTheFlowsPathReachesTheClientOnItsConnectionAndItsAnswerTheNode() throws Exception {
        start();
        TestClient client = registered("flow-reg", ";+sip.instance=\"<urn:uuid:00000000-0000-0000-0000-000000000001>\";reg-id=1");
        String path = pathAtNode("flow-reg");
        assertTrue(path.contains(";lr") && path.contains(";ob"), "a loose route, marked ob for an outbound client: " + path);
        assertTrue(path.contains("@127.0.0.1:" + front.address().getPort()), "names the front: " + path);

        node.send(inviteFromNode("flow-call", path), front.address());
        SIPMessage got = client.receiveOverTcp();
        assertTrue(got instanceof SIPRequest, "the INVITE came down the client's own connection: " + got);
        SIPRequest invite = (SIPRequest) got;
        assertEquals("INVITE", invite.getMethod());
        assertEquals("TCP", ((Via) invite.getTopmostVia()).getTransport(), "the front's Via names the connection's transport");
        assertEquals(2, invite.getViaHeaders().size());
        assertEquals(null, invite.getHeader("Route"), "the flow's Route was consumed");
        String recordRoute = invite.getHeader("Record-Route").toString();
        assertTrue(recordRoute.contains(path.substring(path.indexOf("sip:"), path.indexOf('@'))),
                "the dialog is record-routed through the same flow: " + recordRoute);

        SIPResponse ok = invite.createResponse(200);
        ok.getTo().setTag("alice");
        client.sendRaw(new String(ok.encodeAsBytes("TCP"), java.nio.charset.StandardCharsets.UTF_8));
        Await.until(() -> !node.answers.isEmpty(), () -> "the client's 200 reached the node");
        SIPResponse atNode = node.answers.get(0);
        assertEquals(200, atNode.getStatusCode());
        assertEquals(1, atNode.getViaHeaders().size(), "the front took its Via off");
        assertEquals(1, front.stats().flowRequests());
    }

    @Test
    void aRequestForAFlowWhoseConnectionClosedIsAnswered430AtOnce() throws Exception {
        start();
        TestClient client = registered("gone-reg", "");
        String path = pathAtNode("gone-reg");
        assertFalse(path.contains(";ob"), "no ob for a client that did not ask for outbound: " + path);
        client.close();
        Await.until(() -> front.openConnections() == 0, () -> "the front saw the close");

        node.send(inviteFromNode("gone-call", path), front.address());
        Await.until(() -> !node.answers.isEmpty(), () -> "an answer to the INVITE for a gone flow");
        assertEquals(430, node.answers.get(0).getStatusCode());
        assertEquals("Flow Failed", node.answers.get(0).getReasonPhrase());
        assertEquals(1, front.stats().flowsFailed());
    }

    @Test
    void aForgedFlowTokenIsRefusedLikeAGoneFlow() throws Exception {
        start();
        registered("forged-reg", "");
        String path = pathAtNode("forged-reg");
        int at = path.indexOf('@');
        char last = path.charAt(at - 1);
        String forged = path.substring(0, at - 1) + (last == 'A' ? 'B' : 'A') + path.substring(at);
        node.send(inviteFromNode("forged-call", forged), front.address());
        Await.until(() -> !node.answers.isEmpty(), () -> "an answer to the INVITE with a forged token");
        assertEquals(430, node.answers.get(0).getStatusCode());
    }

    @Test
    void aTcpClientsRequestLostOnTheUdpHopIsSentToTheNodeAgainUntilItAnswers() throws Exception {
        start();
        TestClient client = new TestClient(front.address()).overTcp();
        open.add(client);
        node.silentFor.add("REGISTER"); // as if the first datagrams were lost
        client.send("REGISTER", "lost-reg", "lost-reg", 1, null);
        Await.until(() -> node.withCallId("lost-reg").size() >= 2, () -> "the front sent the REGISTER again");
        node.answer(node.withCallId("lost-reg").get(1), 200);
        assertEquals(200, client.receive().getStatusCode());
        assertTrue(front.stats().retransmittedToNodes() >= 1);
    }

    @Test
    void aKeepalivePingOnAConnectionIsAnsweredWithOneCrlf() throws Exception {
        start();
        TestClient client = registered("ping-reg", "");
        client.sendRaw("\r\n\r\n");
        assertEquals("\r\n", client.readBytes(2));
        client.send("OPTIONS", "after-ping", "after-ping", 1, null);
        assertEquals(200, client.receive().getStatusCode(), "the connection serves on after a ping");
        assertEquals(1, front.stats().keepalivesAnswered());
    }

}
