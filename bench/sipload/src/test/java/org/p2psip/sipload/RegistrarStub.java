package org.p2psip.sipload;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.p2psip.auth.Algorithm;
import org.p2psip.auth.AuthOptions;
import org.p2psip.auth.Authenticator;
import org.p2psip.auth.Credentials;
import org.p2psip.auth.Nonces;

/**
 * A registrar for the client's tests, on a UDP socket of its own thread: it challenges REGISTERs
 * as the nodes do (org.p2psip.auth's Authenticator, SHA-256 then MD5, qop=auth) and answers 200
 * to the right credentials, 401 otherwise, 403 to another user's. It stores nothing; it records
 * what it received (each request once, however often retransmitted), so that a test can check
 * what the client sent. It may drop the first copy of
 * every request (the client must retransmit), ignore chosen users (the client must time out), and
 * play an overloaded server: refuse each user's first REGISTER 503 (the client may come back after
 * its Retry-After).
 * Its clock is the test's ({@link #clockMillis}), so that nonces age on demand.
 */
final class RegistrarStub implements AutoCloseable {
    static final String DOMAIN = "p2psip.test";

    /** One REGISTER as received: its user, Call-ID, CSeq number and Authorization (empty: none). */
    record Received(String user, String callId, int cseq, String authorization) {
    }

    final AtomicLong clockMillis = new AtomicLong(1_700_000_000_000L);
    final List<Received> received = new CopyOnWriteArrayList<>();   // first copies only, in order
    final Set<String> silentUsers = ConcurrentHashMap.newKeySet();
    volatile boolean authenticate = true;
    volatile boolean dropFirstCopies;
    volatile boolean overloadOnce;                 // each user's first REGISTER from now on gets 503
    volatile int retryAfter = 1;                   // the 503's Retry-After seconds; -1: none
    final Set<String> refused = ConcurrentHashMap.newKeySet();         // the users refused 503
    private final Set<String> refusedBranches = ConcurrentHashMap.newKeySet();
    private final Map<String, Boolean> seenBranches = new ConcurrentHashMap<>();
    private final DatagramSocket socket;
    private final Authenticator authenticator;
    private final Thread thread;

    RegistrarStub(Map<String, String> passwords, Duration nonceLifetime) throws SocketException {
        this.socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.authenticator = new Authenticator((user, realm, algorithm) -> Optional.ofNullable(passwords.get(user))
                .map(password -> algorithm.ha1(user, realm, password)),
                new Nonces("stub-secret", nonceLifetime), AuthOptions.algorithms("SHA-256,MD5"));
        this.thread = new Thread(this::serve, "registrar-stub");
        thread.setDaemon(true);
        thread.start();
    }

    String address() {
        return "127.0.0.1:" + socket.getLocalPort();
    }

    private void serve() {
        byte[] buffer = new byte[65_535];
        while (!socket.isClosed()) {
            var packet = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(packet);
                String reply = answer(new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8));
                if (reply != null) {
                    byte[] bytes = reply.getBytes(StandardCharsets.UTF_8);
                    socket.send(new DatagramPacket(bytes, bytes.length, packet.getSocketAddress()));
                }
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** The answer to one request (null: none, a dropped copy or a silent user); the TCP stub uses it too. */
    String answer(String request) {
        if (!request.startsWith("REGISTER ")) {
            return null;
        }
        Map<String, String> h = headers(request);
        String to = h.getOrDefault("to", "");
        String user = to.substring(to.indexOf("sip:") + 4, to.indexOf('@'));
        String via = h.get("via");
        String branch = Response.branchOf(via);
        boolean firstCopy = seenBranches.putIfAbsent(branch, true) == null;
        if (silentUsers.contains(user) || (dropFirstCopies && firstCopy)) {
            return null;
        }
        String authorization = h.getOrDefault("authorization", "");
        String cseq = h.get("cseq");
        if (firstCopy || dropFirstCopies && seenBranches.replace(branch, true, false)) {
            received.add(new Received(user, h.get("call-id"), Integer.parseInt(cseq.split(" ")[0]), authorization));
        }
        String head = "Via: " + via + "\r\nFrom: " + h.get("from") + "\r\nTo: " + to + ";tag=stub\r\nCall-ID: "
                + h.get("call-id") + "\r\nCSeq: " + cseq + "\r\n";
        if (overloadOnce && (refusedBranches.contains(branch) || refused.add(user))) {
            refusedBranches.add(branch); // its retransmissions get the same answer
            return "SIP/2.0 503 Service Unavailable\r\n" + head
                    + (retryAfter >= 0 ? "Retry-After: " + retryAfter + "\r\n" : "") + "Content-Length: 0\r\n\r\n";
        }
        if (!authenticate) {
            return "SIP/2.0 200 OK\r\n" + head + "Content-Length: 0\r\n\r\n";
        }
        List<String> answers = authorization.isEmpty() ? List.of() : List.of(authorization);
        var verdict = authenticator.check("REGISTER", answers, user, DOMAIN, clockMillis.get());
        if (verdict instanceof Authenticator.Verdict.Accepted) {
            return "SIP/2.0 200 OK\r\n" + head + "Content-Length: 0\r\n\r\n";
        }
        if (verdict instanceof Authenticator.Verdict.Refused refused) {
            return "SIP/2.0 " + refused.status() + " " + refused.reason() + "\r\n" + head + "Content-Length: 0\r\n\r\n";
        }
        boolean stale = ((Authenticator.Verdict.Challenge) verdict).stale();
        var out = new StringBuilder("SIP/2.0 401 Unauthorized\r\n").append(head);
        for (String challenge : authenticator.challenges(DOMAIN, stale, clockMillis.get())) {
            out.append("WWW-Authenticate: ").append(challenge).append("\r\n");
        }
        return out.append("Content-Length: 0\r\n\r\n").toString();
    }

    /** The nonce counts of a user's answers, in the order received. */
    List<Integer> nonceCounts(String user) {
        var counts = new ArrayList<Integer>();
        for (Received r : received) {
            if (r.user().equals(user) && !r.authorization().isEmpty()) {
                counts.add(Integer.parseInt(Credentials.parse(r.authorization()).get("nc"), 16));
            }
        }
        return counts;
    }

    /** The algorithm of a user's last answer. */
    Algorithm lastAlgorithm(String user) {
        String last = "";
        for (Received r : received) {
            if (r.user().equals(user) && !r.authorization().isEmpty()) {
                last = r.authorization();
            }
        }
        return Algorithm.named(Credentials.parse(last).get("algorithm")).orElseThrow();
    }

    private static Map<String, String> headers(String request) {
        var out = new java.util.HashMap<String, String>();
        String[] lines = request.split("\r\n");
        for (int i = 1; i < lines.length && !lines[i].isEmpty(); i++) {
            int colon = lines[i].indexOf(':');
            out.putIfAbsent(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
        }
        return out;
    }

    @Override
    public void close() throws InterruptedException {
        socket.close();
        thread.join(2000);
    }
}
