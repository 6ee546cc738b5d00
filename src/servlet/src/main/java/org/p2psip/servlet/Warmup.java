package org.p2psip.servlet;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.p2psip.intake.Intake;

/**
 * A starting node's warm-up: REGISTERs sent to the node itself over UDP, through the SIP stack,
 * the container, the registrar and the DHT, until the just-in-time compiler has seen the hot paths
 * and the overlay answers every one of them at once. A cold JVM serves a twentieth of its warm
 * rate, so a node that took traffic straight after joining failed registrations at ordinary
 * load; the node opens its intake to clients only after this.
 *
 * <p>It goes on until the compiler is quiet too ({@link JitActivity}): C2 went on compiling for
 * half a minute after 20,000 requests, taking one of two cores, and a node opened then refused
 * half of its ordinary load meanwhile.
 *
 * <p>Once the requests asked for were answered, it goes on with at most {@link #TRICKLE}
 * unanswered, enough to keep the hot paths hot: at full pace the requests took the cores from the
 * compiler, and four nodes warming up at once on two cores waited minutes for it.
 *
 * <p>AORs of the node's own ({@code warmup-PORT-K@} its SIP address, a pool of {@link #AORS}) are
 * registered and then refreshed (same Call-ID, CSeq up by one), every tenth request a query and
 * every tenth a removal ({@code Contact: *}, {@code Expires: 0}) of another AOR of the pool, with
 * at most {@link #WINDOW} requests unanswered at a time, so the node is never overloaded by it.
 * Each kind matters: a first registration takes other paths through the store than a refresh, and
 * a removal others again. The node forgets the pool's records once the warm-up is over
 * ({@link #aors}), so that nothing of it stays in the overlay.
 *
 * <p>Runs on its own thread at start-up, never on the request path; it blocks on its socket.
 */
final class Warmup {

    /** Requests unanswered at once: enough to keep the message threads busy, far from overload. */
    static final int WINDOW = 64;
    /** Requests unanswered at once after those asked for: the compiler's turn. */
    static final int TRICKLE = 4;
    private static final int REFRESH_LAG = 4 * WINDOW + 1;
    /** The pool of AORs: each becomes a record the node forgets at the end, so it stays small. */
    static final int AORS = 1_000;
    /** The warm-up is done once the requests asked for were sent and of the last this many answers (or all, if fewer)... */
    private static final int RECENT = 1000;
    /** ...at most this many were not as expected (a node's collector pause may time one out). */
    private static final int RECENT_FAILURES = 10;
    static final String SERVED = "SIP/2.0 200 ";
    static final String REFUSED = "SIP/2.0 503 ";
    private static final int ANSWER_WAIT_MILLIS = 2000;
    private static final Logger LOG = System.getLogger(Warmup.class.getName());

    /** What a warm-up REGISTER carries when the node authenticates (Authentication). */
    interface Credentials {
        /** The Authorization header value for a REGISTER of {@code user} to {@code uri}. */
        String authorization(String user, String uri);
    }

    private final InetSocketAddress node;
    private final Credentials credentials;
    private final int requests;
    private final long expires;
    private final String expected;
    private final Map<String, Long> unanswered = new HashMap<>();
    private final boolean untilQuiet;
    private final BooleanSupplier collecting;
    private final JitActivity compiler = new JitActivity();
    private final boolean[] recent = new boolean[RECENT];
    private int answers;
    private int recentFailures;
    private int sent;
    private int failures;

    /**
     * @param expected the start of the status line every answer must have: "SIP/2.0 200 " for
     *     requests the intake lets through, "SIP/2.0 503 " for those it refuses while starting
     *     (which warms its own path of refusals, the one an avalanche takes)
     * @param credentials with authentication on, what each REGISTER carries; null when off
     * @param untilQuiet whether it goes on until the compiler is quiet, or ends once the requests
     *     asked for were answered (the refused phase: its path is short, and the served phase's
     *     wait for the compiler covers it)
     * @param collecting whether the collector is behind ({@link Intake#collecting}): the warm-up waits meanwhile
     */
    Warmup(InetSocketAddress node, int requests, long expires, String expected, Credentials credentials,
           boolean untilQuiet, BooleanSupplier collecting) {
        this.node = node;
        this.collecting = collecting;
        this.untilQuiet = untilQuiet;
        this.credentials = credentials;
        this.requests = requests;
        this.expires = expires;
        this.expected = expected;
    }

    /** Runs until done or {@code deadlineMillis}; true when done. */
    boolean run(DatagramSocket socket, long deadlineMillis) throws IOException {
        socket.setSoTimeout(200);
        byte[] buffer = new byte[16 * 1024];
        long start = System.currentTimeMillis();
        long compiledAtStart = compilingMillis();
        int sentAsked = -1;
        long askedAnsweredAt = 0;
        while (System.currentTimeMillis() < deadlineMillis) {
            boolean asked = sent >= requests && answers >= Math.min(requests, RECENT) && recentFailures <= RECENT_FAILURES;
            if (asked && sentAsked < 0) {
                sentAsked = sent;
                askedAnsweredAt = System.currentTimeMillis();
            }
            if (asked && (!untilQuiet || compiler.quiet())) {
                drain(socket, buffer);
                long now = System.currentTimeMillis();
                LOG.log(Level.INFO, "warm-up done: {0} REGISTERs to the node itself, {1} not answered {2}; "
                        + "{3} of them in {4} ms, then {5} ms until the compiler was quiet; compiling {6} ms of the {7} ms",
                        sent, failures, expected.trim(), sentAsked, askedAnsweredAt - start, now - askedAnsweredAt,
                        compilingMillis() - compiledAtStart, now - start);
                return true;
            }
            int window = sent >= requests ? TRICKLE : WINDOW;
            while (unanswered.size() < window && !collecting.getAsBoolean()) {
                send(socket); // paced by the collector too: a small heap must not run out on the warm-up
            }
            receive(socket, buffer);
            forgetUnanswered();
        }
        LOG.log(Level.WARNING, "warm-up not done by its deadline: {0} REGISTERs sent, {1} not answered {2}, "
                + "{3} of the last {4}", sent, failures, expected.trim(), recentFailures, RECENT);
        return false;
    }

    /** The AORs this warm-up registers, as the registrar keys them: the node forgets them when it is over. */
    static List<String> aors(int nodePort, String domain) {
        List<String> aors = new ArrayList<>(AORS);
        for (int k = 0; k < AORS; k++) {
            aors.add("sip:" + user(nodePort, k) + "@" + domain);
        }
        return aors;
    }

    private static String user(int nodePort, int k) {
        return WarmupUsers.PREFIX + nodePort + "-" + k;
    }

    private static long compilingMillis() {
        var compiler = ManagementFactory.getCompilationMXBean();
        return compiler != null && compiler.isCompilationTimeMonitoringSupported() ? compiler.getTotalCompilationTime() : 0;
    }

    private void send(DatagramSocket socket) throws IOException {
        int n = sent++;
        // The socket's port in the branch: a second warm-up (the refused phase) numbers its
        // requests from 0 again, and the same branches would be retransmissions of the first's
        // finished transactions, answered with their 200s to the first one's socket.
        String branch = "z9hG4bK-warmup-" + socket.getLocalPort() + "-" + n;
        String request = register(n, branch, socket.getLocalPort());
        unanswered.put(branch.toLowerCase(), System.currentTimeMillis());
        byte[] bytes = request.getBytes(StandardCharsets.UTF_8);
        socket.send(new DatagramPacket(bytes, bytes.length, node));
    }

    /**
     * The n-th request: a registration (even n; a new Call-ID, so a first registration until
     * every AOR of the pool has one) or a refresh of the one {@link #REFRESH_LAG} requests before
     * (odd n; answered by then, since at most {@link #WINDOW} are unanswered, so the refresh never
     * overtakes it), every tenth a query and every tenth a removal of every binding of an AOR half
     * the pool away (a Call-ID of its own, so never out of order). The AORs are a pool of
     * {@link #AORS}: the warm-up makes no more records than that, however long the compiler takes.
     */
    private String register(int n, String branch, int localPort) {
        String host = node.getAddress().getHostAddress();
        String self = host + ":" + localPort;
        boolean refresh = n % 2 == 1 && n > REFRESH_LAG;
        int registration = refresh ? (n - REFRESH_LAG) / 2 : n / 2 + (n % 2) * 1_000_000_000;
        boolean removal = n % 10 == 4;
        String user = user(node.getPort(), removal ? (registration + AORS / 2) % AORS : registration % AORS);
        String aor = "sip:" + user + "@" + host + ":" + node.getPort();
        String uri = "sip:" + host + ":" + node.getPort();
        boolean query = n % 10 == 9;
        return "REGISTER " + uri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + self + ";branch=" + branch + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <" + aor + ">;tag=warmup\r\n"
                + "To: <" + aor + ">\r\n"
                + "Call-ID: warmup-" + (removal ? "removal-" : "") + registration + "@" + self + "\r\n"
                + "CSeq: " + (refresh ? 2 : 1) + " REGISTER\r\n"
                + (query ? "" : removal ? "Contact: *\r\nExpires: 0\r\n"
                        : "Contact: <sip:warmup@" + self + ">\r\nExpires: " + expires + "\r\n")
                + (credentials == null ? "" : "Authorization: " + credentials.authorization(user, uri) + "\r\n")
                + "Content-Length: 0\r\n\r\n";
    }

    /**
     * Waits for the requests still unanswered (or until they count as failures): one answered
     * after the warm-up's records were removed would write its AOR again, and stay.
     */
    private void drain(DatagramSocket socket, byte[] buffer) throws IOException {
        while (!unanswered.isEmpty()) {
            receive(socket, buffer);
            forgetUnanswered();
        }
    }

    private void receive(DatagramSocket socket, byte[] buffer) throws IOException {
        var packet = new DatagramPacket(buffer, buffer.length);
        try {
            socket.receive(packet);
        } catch (SocketTimeoutException e) {
            return;
        }
        String answer = new String(buffer, 0, packet.getLength(), StandardCharsets.UTF_8);
        String branch = Intake.branchIn(answer);
        if (branch == null || answer.startsWith("SIP/2.0 1") || unanswered.remove(branch) == null) {
            return;
        }
        answered(answer.startsWith(expected));
    }

    /** Requests unanswered for too long count as failures and free their place in the window. */
    private void forgetUnanswered() {
        long before = System.currentTimeMillis() - ANSWER_WAIT_MILLIS;
        var waiting = unanswered.values().iterator();
        while (waiting.hasNext()) {
            if (waiting.next() < before) {
                waiting.remove();
                answered(false);
            }
        }
    }

    private void answered(boolean asExpected) {
        int slot = answers++ % RECENT;
        if (!asExpected) {
            failures++;
        }
        recentFailures += (asExpected ? 0 : 1) - (recent[slot] ? 1 : 0);
        recent[slot] = !asExpected;
    }
}
