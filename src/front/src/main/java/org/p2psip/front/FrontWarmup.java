package org.p2psip.front;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * A starting front's warm-up: query REGISTERs (no Contact: they store nothing) sent to the front's
 * own UDP address and forwarded to the nodes as any client's, until the JIT has compiled the
 * forwarding path. A cold front reads a datagram many times slower than a warm one: four nodes
 * and a front given 500 REGISTER/s through it the moment they were up fell a quarter of its socket
 * behind, and shed most of them for two seconds. Any final answer counts (a node with
 * authentication on answers 401): the path through the front is the same.
 *
 * <p>Runs before the front says it listens ({@link FrontMain}), on the main thread, blocking on
 * its own sockets; the front serves clients meanwhile. Several sockets send, since fronts sharing
 * a listen address (SO_REUSEPORT) are given a source's datagrams by its address and port.
 */
final class FrontWarmup {

    /** Requests unanswered at a time: enough to keep the loop busy, far from its socket's size. */
    static final int WINDOW = 128;
    private static final int SOCKETS = 8;
    private static final int RECEIVE_TIMEOUT_MS = 20;
    private static final long RESEND_NANOS = 500_000_000L;
    private static final Logger LOG = System.getLogger(FrontWarmup.class.getName());

    private final InetSocketAddress front;
    private final int requests;

    FrontWarmup(InetSocketAddress front, int requests) {
        this.front = front;
        this.requests = requests;
    }

    /**
     * Waits until {@code nodesUp} says a node is up, then sends the requests; returns the answers
     * received, once {@link #requests} were answered or at {@code deadlineNanos} (System.nanoTime).
     */
    int run(BooleanSupplier nodesUp, long deadlineNanos) throws IOException, InterruptedException {
        while (!nodesUp.getAsBoolean()) {
            if (System.nanoTime() > deadlineNanos) {
                LOG.log(Level.WARNING, "warm-up skipped: no node was up by its deadline");
                return 0;
            }
            Thread.sleep(50); // the probes' pace: a node is up when its first OPTIONS is answered
        }
        List<DatagramSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < SOCKETS; i++) {
                var socket = new DatagramSocket(new InetSocketAddress(front.getAddress(), 0));
                socket.setSoTimeout(i == 0 ? RECEIVE_TIMEOUT_MS : 1);
                sockets.add(socket);
            }
            return exchange(sockets, deadlineNanos);
        } finally {
            sockets.forEach(DatagramSocket::close);
        }
    }

    private int exchange(List<DatagramSocket> sockets, long deadlineNanos) throws IOException {
        Set<String> unanswered = new HashSet<>();
        byte[] buffer = new byte[65_536];
        int sent = 0;
        int answered = 0;
        long lastAnswer = System.nanoTime();
        while (answered < requests && System.nanoTime() < deadlineNanos) {
            while (unanswered.size() < WINDOW && sent < requests + WINDOW) {
                var socket = sockets.get(sent % sockets.size());
                String branch = "z9hG4bK-front-warmup-" + socket.getLocalPort() + "-" + sent;
                byte[] bytes = request(sent++, branch, socket.getLocalPort()).getBytes(StandardCharsets.UTF_8);
                socket.send(new DatagramPacket(bytes, bytes.length, front));
                unanswered.add(branch);
            }
            int before = answered;
            for (var socket : sockets) {
                answered += receive(socket, buffer, unanswered);
            }
            if (answered > before) {
                lastAnswer = System.nanoTime();
            } else if (System.nanoTime() - lastAnswer > RESEND_NANOS) {
                unanswered.clear(); // lost or refused silently: a new window, never a wait on them
                lastAnswer = System.nanoTime();
            }
        }
        return answered;
    }

    /** Reads the final answers waiting on {@code socket}; returns how many were to requests still unanswered. */
    private static int receive(DatagramSocket socket, byte[] buffer, Set<String> unanswered) throws IOException {
        int answered = 0;
        while (true) {
            var packet = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(packet);
            } catch (SocketTimeoutException e) {
                return answered;
            }
            String text = new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8);
            if (text.startsWith("SIP/2.0 1")) {
                continue; // provisional
            }
            int at = text.indexOf("branch=");
            if (at >= 0) {
                int end = at + 7;
                while (end < text.length() && text.charAt(end) > ' ' && text.charAt(end) != ';') {
                    end++;
                }
                if (unanswered.remove(text.substring(at + 7, end))) {
                    answered++;
                }
            }
        }
    }

    /** The n-th query REGISTER: an AOR of the warm-up's own, no Contact, so the registrar only reads. */
    private String request(int n, String branch, int localPort) {
        String host = front.getAddress().getHostAddress();
        String self = host + ":" + localPort;
        String aor = "sip:front-warmup-" + (n % 1000) + "@" + host;
        return "REGISTER sip:" + host + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + self + ";branch=" + branch + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <" + aor + ">;tag=front-warmup\r\n"
                + "To: <" + aor + ">\r\n"
                + "Call-ID: front-warmup-" + n + "@" + self + "\r\n"
                + "CSeq: 1 REGISTER\r\n"
                + "Content-Length: 0\r\n\r\n";
    }
}
