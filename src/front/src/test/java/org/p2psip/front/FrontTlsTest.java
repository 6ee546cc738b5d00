package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;
import org.p2psip.front.relay.Forwarder;

/**
 * The front's TLS listener over real loopback sockets: a JDK TLS client that trusts the front's
 * certificate, the front with a key store made by keytool, and a small test node behind it.
 */
class FrontTlsTest {

    @TempDir
    static Path dir;
    /** Made once: keytool is a JVM of its own, seconds on a busy machine. */
    private static TestKeyStore keys;
    private static SSLContext trusting;

    private final List<AutoCloseable> open = new ArrayList<>();
    private TestNode node;
    private Front front;

    @BeforeAll
    static void makeKeys() throws Exception {
        keys = TestKeyStore.in(dir);
        trusting = keys.clientContext();
    }

    @BeforeEach
    void start() throws Exception {
        node = new TestNode();
        open.add(node);
        front = Front.start(Config.of(Map.of(
                FrontOptions.LISTEN.name(), "127.0.0.1:0",
                FrontOptions.NODES.name(), node.address(),
                FrontOptions.POLICY.name(), "rr",
                FrontOptions.PROBE_INTERVAL.name(), "50ms",
                FrontOptions.PROBE_TIMEOUT.name(), "2s",
                FrontOptions.THREADS.name(), "1",
                FrontOptions.TLS_PORT.name(), Integer.toString(FreePort.onLoopback()),
                FrontOptions.TLS_KEY_STORE.name(), keys.path.toString(),
                FrontOptions.TLS_STORE_PASSWORD.name(), TestKeyStore.PASSWORD)));
        open.add(front);
        Await.until(() -> front.nodes().get(0).up(), () -> "the node up: " + front.nodes());
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private TestClient tlsClient(String... protocols) throws Exception {
        TestClient client = new TestClient(front.address());
        open.add(client);
        return client.overTls(front.tlsAddress(), trusting, protocols);
    }

    @Test
    void aTlsClientsRegisterReachesTheNodeUnderTheFrontsViaAndItsAnswerComesBackOverItsConnection() throws Exception {
        TestClient client = tlsClient();
        client.send("REGISTER", "tls-1", "tls-1", 1, null);
        SIPResponse answer = client.receive();

        SIPRequest atNode = node.withCallId("tls-1").get(0);
        assertEquals(2, atNode.getViaHeaders().size(), "the front's Via on top of the client's");
        Via frontVia = atNode.getTopmostVia();
        assertEquals("UDP", frontVia.getTransport(), "front to node is UDP");
        assertEquals(front.address().getPort(), frontVia.getPort(), "the front's Via names its UDP/TCP port");
        assertNotNull(frontVia.getParameter(Forwarder.CONNECTION_PARAM), "the client's connection named");
        Via clientVia = (Via) atNode.getViaHeaders().get(1);
        assertEquals("TLS", clientVia.getTransport(), "the client's Via as it sent it");
        assertEquals(String.valueOf(client.port()), clientVia.getParameter(Via.RPORT), "rport filled in");

        assertEquals(200, answer.getStatusCode());
        assertEquals("tls-1", answer.getCallId().getCallId());
        assertEquals(1, answer.getViaHeaders().size(), "the front's Via is popped");
        assertEquals("TLS", answer.getTopmostVia().getTransport(), "the answer's Via names TLS, the way it came");
        assertEquals("z9hG4bKtls-1", answer.getTopmostVia().getBranch());
        assertEquals(0, front.openTransactions(), "the final answer closed the transaction");
    }

    @Test
    void aClientThatSpeaksOnlyTls12IsServedToo() throws Exception {
        TestClient client = tlsClient("TLSv1.2");
        client.send("REGISTER", "tls12-1", "tls12-1", 1, null);
        assertEquals(200, client.receive().getStatusCode());
        assertEquals(0, front.stats().tlsHandshakeFailures());
    }

    @Test
    void aSipsRequestUriReachesTheNodeUnchanged() throws Exception {
        TestClient client = tlsClient();
        String register = TestClient.request("REGISTER", "sips-1", "sips-1", 1, null, client.port(), "TLS")
                .replace("REGISTER sip:bob@example.com", "REGISTER sips:example.com")
                .replace("<sip:", "<sips:");
        client.sendRaw(register);
        assertEquals(200, client.receive().getStatusCode());
        SIPRequest atNode = node.withCallId("sips-1").get(0);
        assertEquals("sips:example.com", atNode.getRequestURI().toString(), "never rewritten to sip:");
        assertEquals("<sips:bob@example.com>", atNode.getTo().getAddress().toString());
        assertEquals("<sips:alice@127.0.0.1:" + client.port() + ">", atNode.getContactHeader().getAddress().toString());
    }

    /** The front's own answers (here 400) also go back over the connection, with the client's Via naming TLS. */
    @Test
    void theFrontsOwnAnswerToATlsClientGoesBackOverItsConnection() throws Exception {
        TestClient client = tlsClient();
        client.sendRaw(TestClient.request("REGISTER", "x", "no-call-id", 1, null, client.port(), "TLS")
                .replace("Call-ID: x\r\n", ""));
        SIPResponse answer = client.receive();
        assertEquals(400, answer.getStatusCode());
        assertEquals("TLS", answer.getTopmostVia().getTransport());
        assertTrue(node.received.isEmpty(), "nothing reached the node");
    }

    @Test
    void plainTcpOnTheTlsPortIsClosedAndCountedAndTheFrontServesOn() throws Exception {
        try (var plain = new Socket()) {
            plain.connect(front.tlsAddress(), 5_000);
            plain.setSoTimeout((int) Await.DEADLINE.toMillis());
            plain.getOutputStream().write(TestClient.request("REGISTER", "plain-1", "plain-1", 1, null,
                    plain.getLocalPort(), "TCP").getBytes(StandardCharsets.UTF_8));
            assertTrue(closedByPeer(plain.getInputStream()), "the front closed the connection");
        }
        Await.until(() -> front.stats().tlsHandshakeFailures() == 1,
                () -> "one TLS handshake failure counted: " + front.stats().snapshot());
        assertEquals(0, front.stats().unparsable(), "a failed handshake is not also counted as unparsable SIP");
        assertTrue(node.withCallId("plain-1").isEmpty(), "nothing of it reached the node");

        TestClient client = tlsClient();
        client.send("REGISTER", "after", "after", 1, null);
        assertEquals(200, client.receive().getStatusCode(), "the front still serves TLS");
    }

    /** True once the peer closed (end of stream or a reset); false if it sent something, or nothing in time. */
    private static boolean closedByPeer(InputStream in) {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // a reset: the front closed with the client's bytes unread
        }
    }
}
