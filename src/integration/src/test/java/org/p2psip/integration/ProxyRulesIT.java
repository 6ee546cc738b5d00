package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The proxy's answers and forwarding (RFC 3261 §16) and the registrar's 200 and refusals
 * (§10.3), on one node of the real container (memory backend), each checked by a SIPp run of
 * sipp-scenarios/proxy or sipp-scenarios/registrar that fails when the node answers otherwise;
 * and the server transaction's retransmission rule (§17.2.2), with a socket of the test's own,
 * because SIPp takes a second identical 200 for a retransmission of the first.
 */
class ProxyRulesIT extends DeployedNodes {

    /** The callee of the relayed call: a SIPp UAS at an address, no AOR of ours. */
    private static final int RELAY_UAS_PORT = 25269;

    ProxyRulesIT() {
        super("proxy", "memory", 25260, 1);
        deployment.withSetting("p2psip.proxy.relay", "true");
    }

    @Test
    void aCallOfOurUserToADomainNotServedIsRelayedToItsRequestUri() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target");
        assertEquals(0, sipp.relayedCalls(deployment.node(0), RELAY_UAS_PORT, 5),
                "calls from caller@p2psip.test to callee@127.0.0.1:" + RELAY_UAS_PORT
                        + " should reach the UAS there through the node (p2psip.proxy.relay); " + sipp.where());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unavailable", "too-many-hops", "too-many-hops-options", "loop", "cancel", "q-order",
        "fork", "fork-busy", "extension"})
    void proxyAnswersAsTheCheckExpects(String check) {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target, not by registration");
        assertEquals(0, sipp.proxy(deployment.node(0), check),
                check + ": see sipp-scenarios/proxy/README.md for what SIPp expected; " + sipp.where());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"answer-lists-date-and-expires", "refused-keeps-binding", "answer-echoes-path",
        "contact-twice-is-one-binding", "own-address-is-default-domain"})
    void registrarAnswersAsTheCheckExpects(String check) {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app has no registrar");
        assertEquals(0, sipp.registrar(deployment.node(0), check),
                check + ": the answer was not the one sipp-scenarios/registrar/" + check + ".xml expects; "
                        + sipp.where());
    }

    @Test
    void aRegisterRetransmittedAfterIts200GetsThe200Again() throws IOException {
        try (var socket = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            socket.setSoTimeout(5_000);
            String[] node = deployment.node(0).split(":");
            var target = new InetSocketAddress(node[0], Integer.parseInt(node[1]));
            byte[] register = retransmittable(socket.getLocalPort()).getBytes(StandardCharsets.US_ASCII);
            socket.send(new DatagramPacket(register, register.length, target));
            assertTrue(answer(socket).startsWith("SIP/2.0 200"), "the REGISTER itself was not answered 200");
            // the client lost that 200 and sends the very same request again (RFC 3261 §17.1.2.2)
            socket.send(new DatagramPacket(register, register.length, target));
            String again = answer(socket);
            assertTrue(again.startsWith("SIP/2.0 200"), "the retransmission was answered " + again
                    + " instead of the transaction's 200 (a new request would be refused for its repeated CSeq)");
        }
    }

    private static String retransmittable(int port) {
        String user = "again-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        return "REGISTER sip:p2psip.test SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bK-" + user + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:" + user + "@p2psip.test>;tag=" + user + "\r\n"
                + "To: <sip:" + user + "@p2psip.test>\r\n"
                + "Call-ID: " + user + "\r\n"
                + "CSeq: 1 REGISTER\r\n"
                + "Contact: <sip:" + user + "@127.0.0.1:" + port + ">\r\n"
                + "Expires: 3600\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /** The status line of the next message, or "nothing within 5 s". */
    private static String answer(DatagramSocket socket) throws IOException {
        var packet = new DatagramPacket(new byte[65_535], 65_535);
        try {
            socket.receive(packet);
        } catch (SocketTimeoutException silence) {
            return "nothing within 5 s";
        }
        String text = new String(packet.getData(), 0, packet.getLength(), StandardCharsets.US_ASCII);
        return text.substring(0, Math.max(0, text.indexOf("\r\n")));
    }
}
