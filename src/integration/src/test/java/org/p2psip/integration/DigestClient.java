package org.p2psip.integration;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.p2psip.auth.Algorithm;
import org.p2psip.auth.Digest;

/**
 * A phone of the test's own over UDP, for what SIPp 3.6 cannot do: answer a SHA-256 challenge,
 * and send its answer to another node than the one that challenged it. One REGISTER transaction
 * at a time; retransmits every 500 ms, gives up after 5 s.
 */
final class DigestClient implements AutoCloseable {

    /** A final response: its status and its headers' lines. */
    record Response(int status, List<String> lines) {
        List<String> headers(String name) {
            var out = new ArrayList<String>();
            for (String line : lines) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).strip().equalsIgnoreCase(name)) {
                    out.add(line.substring(colon + 1).strip());
                }
            }
            return out;
        }
    }

    private final DatagramSocket socket;
    private final String user;
    private final String domain;
    private final String callId = "digest-client-" + System.nanoTime();
    private int cseq;

    DigestClient(String user, String domain) throws IOException {
        this.socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        this.socket.setSoTimeout(500);
        this.user = user;
        this.domain = domain;
    }

    /** REGISTERs sip:phone@ at node (host:port) for the user's AOR, with an Authorization header when not null. */
    Response register(String node, String authorization) throws IOException {
        int port = socket.getLocalPort();
        String request = "REGISTER sip:" + domain + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bK" + System.nanoTime() + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:" + user + "@" + domain + ">;tag=dc" + port + "\r\n"
                + "To: <sip:" + user + "@" + domain + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + (++cseq) + " REGISTER\r\n"
                + "Contact: <sip:phone@127.0.0.1:" + port + ">\r\n"
                + "Expires: 600\r\n"
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
                + "Content-Length: 0\r\n\r\n";
        return exchange(node, request.getBytes(StandardCharsets.UTF_8));
    }

    /** The Authorization answering {@code challenge} (a WWW-Authenticate value) with password, as a phone computes it. */
    String answer(String challenge, String password) {
        Algorithm algorithm = Algorithm.named(param(challenge, "algorithm")).orElseThrow();
        String realm = param(challenge, "realm");
        String nonce = param(challenge, "nonce");
        String uri = "sip:" + domain;
        String response = Digest.response(algorithm, algorithm.ha1(user, realm, password), nonce, "00000001", "c0ffee",
                "auth", "REGISTER", uri);
        return "Digest username=\"" + user + "\", realm=\"" + realm + "\", nonce=\"" + nonce + "\", uri=\"" + uri
                + "\", response=\"" + response + "\", algorithm=" + algorithm.wireName()
                + ", qop=auth, nc=00000001, cnonce=\"c0ffee\"";
    }

    private static String param(String challenge, String name) {
        Matcher m = Pattern.compile(name + "=\"?([^\",]*)\"?").matcher(challenge);
        return m.find() ? m.group(1) : "";
    }

    private Response exchange(String node, byte[] request) throws IOException {
        String[] hostPort = node.split(":");
        var to = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        long deadline = System.nanoTime() + 5_000_000_000L;
        byte[] buffer = new byte[65_535];
        while (System.nanoTime() < deadline) {
            socket.send(new DatagramPacket(request, request.length, to));
            try {
                while (true) {
                    var packet = new DatagramPacket(buffer, buffer.length);
                    socket.receive(packet);
                    String text = new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8);
                    List<String> lines = List.of(text.split("\r\n"));
                    int status = Integer.parseInt(lines.get(0).split(" ")[1]);
                    if (status >= 200 && text.contains("CSeq: " + cseq + " REGISTER")) {
                        return new Response(status, lines);
                    }
                }
            } catch (SocketTimeoutException retransmit) {
                // no final answer within 500 ms: send again (RFC 3261 Timer E)
            }
        }
        throw new IOException("no final response from " + node + " within 5 s");
    }

    @Override
    public void close() {
        socket.close();
    }
}
