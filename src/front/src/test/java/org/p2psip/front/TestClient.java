package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import gov.nist.javax.sip.message.SIPResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.Arrays;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.p2psip.front.wire.SipParser;

/**
 * A SIP user agent client for tests, over a real loopback UDP socket (or a TCP or TLS connection):
 * sends requests written from a template and reads answers with a deadline.
 */
final class TestClient implements AutoCloseable {

    private final DatagramSocket udp;
    private final InetSocketAddress front;
    private Socket tcp;
    private String transport = "UDP";

    TestClient(InetSocketAddress front) throws IOException {
        this.front = front;
        this.udp = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
    }

    int port() {
        return tcp != null ? tcp.getLocalPort() : udp.getLocalPort();
    }

    /** From now on requests go over a TCP connection to the front. */
    TestClient overTcp() throws IOException {
        tcp = new Socket();
        tcp.connect(front, 5_000);
        tcp.setSoTimeout((int) Await.DEADLINE.toMillis());
        transport = "TCP";
        return this;
    }

    /**
     * From now on requests go over a TLS connection to {@code tlsAddress}, once the handshake
     * succeeded; the front's certificate must name 127.0.0.1, as a phone would check. No
     * {@code protocols}: the JDK's defaults.
     */
    TestClient overTls(InetSocketAddress tlsAddress, SSLContext context, String... protocols) throws IOException {
        var socket = (SSLSocket) context.getSocketFactory().createSocket();
        if (protocols.length > 0) {
            socket.setEnabledProtocols(protocols);
        }
        socket.connect(tlsAddress, 5_000);
        socket.setSoTimeout((int) Await.DEADLINE.toMillis());
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate's names against the address
        socket.setSSLParameters(parameters);
        socket.startHandshake();
        tcp = socket;
        transport = "TLS";
        return this;
    }

    static String request(String method, String callId, String branch, int cseq, String toTag, int port,
            String transport) {
        return method + " sip:bob@example.com SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport + " 127.0.0.1:" + port + ";branch=z9hG4bK" + branch + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@example.com>;tag=alice\r\n"
                + "To: <sip:bob@example.com>" + (toTag == null ? "" : ";tag=" + toTag) + "\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + "Contact: <sip:alice@127.0.0.1:" + port + ">\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /** Sends {@code method} for {@code callId} (to-tag null: out of dialog). */
    void send(String method, String callId, String branch, int cseq, String toTag) throws IOException {
        sendRaw(request(method, callId, branch, cseq, toTag, port(), transport));
    }

    void sendRaw(String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (tcp != null) {
            OutputStream out = tcp.getOutputStream();
            out.write(bytes);
            out.flush();
        } else {
            udp.send(new DatagramPacket(bytes, bytes.length, front));
        }
    }

    /** The next answer, failing the test if none comes within the deadline. */
    SIPResponse receive() throws IOException, ParseException {
        SIPResponse response = tcp != null ? receiveTcp() : receiveUdp();
        assertNotNull(response, "no answer within " + Await.DEADLINE);
        return response;
    }

    private SIPResponse receiveUdp() throws IOException, ParseException {
        udp.setSoTimeout((int) Await.DEADLINE.toMillis());
        var packet = new DatagramPacket(new byte[65_536], 65_536);
        try {
            udp.receive(packet);
        } catch (SocketTimeoutException e) {
            return null;
        }
        return (SIPResponse) SipParser.parse(Arrays.copyOf(packet.getData(), packet.getLength()), true);
    }

    /** Reads one answer without a body (the test nodes send none): up to the empty line. */
    private SIPResponse receiveTcp() throws IOException, ParseException {
        return (SIPResponse) receiveOverTcp();
    }

    /** The next message on the TCP connection, request or answer, without a body; null at a time-out. */
    gov.nist.javax.sip.message.SIPMessage receiveOverTcp() throws IOException, ParseException {
        InputStream in = tcp.getInputStream();
        var head = new java.io.ByteArrayOutputStream();
        int matched = 0;
        byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        while (matched < end.length) {
            int b;
            try {
                b = in.read();
            } catch (SocketTimeoutException e) {
                return null;
            }
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == end[0] ? 1 : 0);
        }
        return SipParser.parse(head.toByteArray(), false);
    }

    /** The next {@code n} bytes on the TCP connection, as text (keep-alive answers). */
    String readBytes(int n) throws IOException {
        return new String(tcp.getInputStream().readNBytes(n), StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        udp.close();
        if (tcp != null) {
            tcp.close();
        }
    }
}
