package org.p2psip.integration;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.p2psip.auth.Algorithm;
import org.p2psip.auth.Digest;

/**
 * A phone of the test's own, for what SIPp 3.6 cannot do: answer a SHA-256 challenge, send its
 * answer to another node than the one that challenged it, and speak TLS (Debian's SIPp is built
 * without it). One REGISTER transaction at a time; over UDP it retransmits every 500 ms, and gives
 * up after 5 s.
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
    /** Over TLS: the context trusting the deployment's CA, and the connection once opened. */
    private final SSLContext tls;
    private SSLSocket connection;
    private final String user;
    private final String domain;
    private final String callId = "digest-client-" + System.nanoTime();
    private int cseq;

    /** A phone over UDP. */
    DigestClient(String user, String domain) throws IOException {
        this.socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        this.socket.setSoTimeout(500);
        this.tls = null;
        this.user = user;
        this.domain = domain;
    }

    /** A phone over TLS that trusts the CA whose certificate (PEM) is {@code ca}; its URIs are sips. */
    DigestClient(String user, String domain, Path ca) throws IOException {
        this.socket = null;
        this.tls = trusting(ca);
        this.user = user;
        this.domain = domain;
    }

    /**
     * REGISTERs phone@ at node (host:port) for the user's AOR, with an Authorization header when
     * not null. Over TLS the first call opens the connection to node and later calls reuse it.
     */
    Response register(String node, String authorization) throws IOException {
        String scheme = tls == null ? "sip" : "sips";
        int port = tls == null ? socket.getLocalPort() : connect(node).getLocalPort();
        String request = "REGISTER " + scheme + ":" + domain + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + (tls == null ? "UDP" : "TLS") + " 127.0.0.1:" + port
                + ";branch=z9hG4bK" + System.nanoTime() + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <" + scheme + ":" + user + "@" + domain + ">;tag=dc" + port + "\r\n"
                + "To: <" + scheme + ":" + user + "@" + domain + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + (++cseq) + " REGISTER\r\n"
                + "Contact: <" + scheme + ":phone@127.0.0.1:" + port + (tls == null ? "" : ";transport=tls") + ">\r\n"
                + "Expires: 600\r\n"
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
                + "Content-Length: 0\r\n\r\n";
        byte[] bytes = request.getBytes(StandardCharsets.UTF_8);
        return tls == null ? exchange(node, bytes) : exchangeOverTls(bytes);
    }

    /** A query REGISTER (no Contact, RFC 3261 §10.2.3) over UDP: its 200 lists the AOR's bindings. */
    Response query(String node) throws IOException {
        int port = socket.getLocalPort();
        String request = "REGISTER sip:" + domain + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bK" + System.nanoTime() + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:" + user + "@" + domain + ">;tag=q" + port + "\r\n"
                + "To: <sip:" + user + "@" + domain + ">\r\n"
                + "Call-ID: query-" + callId + "\r\n"
                + "CSeq: " + (++cseq) + " REGISTER\r\n"
                + "Content-Length: 0\r\n\r\n";
        return exchange(node, request.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * An INVITE to requestUri from a caller of another domain (so never challenged), over UDP;
     * its final answer (the test sends no ACK: a failed INVITE's answer is retransmitted, harmless).
     */
    Response invite(String node, String requestUri) throws IOException {
        int port = socket.getLocalPort();
        String request = "INVITE " + requestUri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bK" + System.nanoTime() + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:caller@elsewhere.example>;tag=inv" + port + "\r\n"
                + "To: <" + requestUri + ">\r\n"
                + "Call-ID: invite-" + callId + "\r\n"
                + "CSeq: " + (++cseq) + " INVITE\r\n"
                + "Contact: <sip:caller@127.0.0.1:" + port + ">\r\n"
                + "Content-Length: 0\r\n\r\n";
        return exchange(node, request.getBytes(StandardCharsets.UTF_8));
    }

    /** The Authorization answering {@code challenge} (a WWW-Authenticate value) with password, as a phone computes it. */
    String answer(String challenge, String password) {
        Algorithm algorithm = Algorithm.named(param(challenge, "algorithm")).orElseThrow();
        String realm = param(challenge, "realm");
        String nonce = param(challenge, "nonce");
        String uri = (tls == null ? "sip:" : "sips:") + domain;
        return Digest.authorization(algorithm, user, realm, algorithm.ha1(user, realm, password), nonce, "00000001",
                "c0ffee", "REGISTER", uri);
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
                    if (status >= 200 && text.contains("CSeq: " + cseq + " ")) {
                        return new Response(status, lines);
                    }
                }
            } catch (SocketTimeoutException retransmit) {
                // no final answer within 500 ms: send again (RFC 3261 Timer E)
            }
        }
        throw new IOException("no final response from " + node + " within 5 s");
    }

    private SSLSocket connect(String node) throws IOException {
        if (connection == null) {
            String[] hostPort = node.split(":");
            connection = (SSLSocket) tls.getSocketFactory().createSocket(hostPort[0], Integer.parseInt(hostPort[1]));
            connection.setSoTimeout(5_000);
            connection.startHandshake(); // fails here, not at the first read, when the node's certificate is not trusted
        }
        return connection;
    }

    /** Sends the request on the TLS connection and reads answers (framed by Content-Length) up to its final one. */
    private Response exchangeOverTls(byte[] request) throws IOException {
        connection.getOutputStream().write(request);
        connection.getOutputStream().flush();
        InputStream in = connection.getInputStream();
        while (true) {
            String head = readHead(in);
            List<String> lines = List.of(head.split("\r\n"));
            in.readNBytes(contentLength(lines));
            int status = Integer.parseInt(lines.get(0).split(" ")[1]);
            if (status >= 200 && head.contains("CSeq: " + cseq + " REGISTER")) {
                return new Response(status, lines);
            }
        }
    }

    private static String readHead(InputStream in) throws IOException {
        var head = new ByteArrayOutputStream();
        int matched = 0; // bytes of CRLFCRLF seen in a row
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the node closed the TLS connection");
            }
            head.write(b);
            matched = b == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.UTF_8);
    }

    private static int contentLength(List<String> lines) {
        return lines.stream().filter(l -> l.regionMatches(true, 0, "Content-Length:", 0, 15))
                .map(l -> Integer.parseInt(l.substring(15).strip())).findFirst().orElse(0);
    }

    private static SSLContext trusting(Path ca) throws IOException {
        try (var pem = Files.newInputStream(ca)) {
            var trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(pem));
            var trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            var context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("cannot trust " + ca + ": " + e, e);
        }
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.close();
        }
        if (connection != null) {
            connection.close();
        }
    }
}
