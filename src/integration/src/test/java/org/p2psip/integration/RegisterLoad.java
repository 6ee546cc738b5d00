package org.p2psip.integration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;

/**
 * Many phones' REGISTERs over UDP from a few sockets of the test's own, sent as phones send them
 * (RFC 3261 §10.2): each user keeps one Call-ID for all its requests and raises its CSeq by one
 * with each. A request left unanswered is sent again, the same bytes, after T1, then at doubling
 * intervals up to T2 (Timer E), until Timer F (64 T1) gives up on it. A 503 with Retry-After is a
 * node asking to be asked later: the user asks again once it has passed, as a new request
 * (CSeq + 1, since the refused one may have been applied before the deadline ran out).
 *
 * <p>At most {@code window} requests are out at once, so the load follows what the nodes carry
 * rather than a rate guessed for a shared 2-core machine. Answers are matched to their request by
 * Call-ID and CSeq. Socket k sends to node k; every user's Contact names the first socket, so a
 * user's binding is the same whichever node a request of it goes to. One round at a time.
 */
final class RegisterLoad implements AutoCloseable {

    /** RFC 3261's timers for a non-INVITE client transaction over UDP, in milliseconds. */
    static final long T1 = 500;
    static final long T2 = 4_000;
    static final long TIMER_F = 64 * T1;
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);

    /** REGISTER with the user's Contact and Expires 3600, or a query (no Contact, RFC 3261 §10.2.3). */
    enum Kind { BIND, QUERY }

    private final String domain;
    private final String prefix;
    /** Ends every Call-ID, so that an answer to another client (or an earlier run) is never taken for ours. */
    private final String nonce = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    private final List<InetSocketAddress> nodes;
    private final DatagramChannel[] sockets;
    private final Thread[] receivers;
    /** Timer E and F of every request, and the wait of every refused one. */
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "register-load-timers");
        t.setDaemon(true);
        return t;
    });
    /** Each user's last CSeq: the next request of the user, in any round, carries one more. */
    private final long[] cseq;
    private final int window;
    private volatile LoadRound round;
    /** Where each round writes how far it is every few seconds, and how it ended. */
    private final Path log;

    /**
     * @param nodes  host:port of each node, in order
     * @param users  how many users (AORs {@code prefix0000000@domain} on)
     * @param window requests out at once, over all nodes
     */
    RegisterLoad(List<String> nodes, int users, int window, String prefix, String domain, Path log) throws IOException {
        this.log = log;
        this.nodes = nodes.stream().map(n -> new InetSocketAddress(n.split(":")[0], Integer.parseInt(n.split(":")[1])))
                .toList();
        this.cseq = new long[users];
        this.window = window;
        this.prefix = prefix;
        this.domain = domain;
        this.sockets = new DatagramChannel[nodes.size()];
        this.receivers = new Thread[nodes.size()];
        for (int k = 0; k < sockets.length; k++) {
            sockets[k] = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
            // answers arrive in bursts while this JVM shares two cores with four nodes: a small
            // buffer would drop them, and each drop costs a retransmission the test did not mean
            sockets[k].setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
            DatagramChannel socket = sockets[k];
            receivers[k] = new Thread(() -> receive(socket), "register-load-receiver-" + k);
            receivers[k].setDaemon(true);
            receivers[k].start();
        }
    }

    /** The AOR's user part of user i: prefix and seven digits. */
    String user(int i) {
        return prefix + String.format("%07d", i);
    }

    /** The one Contact every request of user i binds. */
    String contact(int i) {
        return "sip:" + user(i) + "@127.0.0.1:" + port(0);
    }

    /**
     * One request of each of the users 0..users-1 (each the user's next CSeq), user i's to node
     * {@code nodeOf(i)}; returns once every one has its final outcome. Fails the test if nothing
     * was answered for {@code stall} (a client fault: Timer F ends every request well before).
     */
    LoadResult run(String name, int users, Kind kind, IntUnaryOperator nodeOf, Duration stall)
            throws InterruptedException {
        LoadRound r = new LoadRound(name, users, kind, window, this::user, stall);
        round = r;
        int next = 0;
        long logged = System.nanoTime();
        while (!r.finished()) {
            if (System.nanoTime() - logged > PROGRESS_EVERY.toNanos()) {
                logged = System.nanoTime();
                write(r.progress());
            }
            Integer user = r.due.poll(); // a refused user whose Retry-After passed goes first
            if (user == null && next < users) {
                user = next++;
            } else if (user == null) {
                user = r.due.poll(1, TimeUnit.SECONDS); // only refused users are left to wait for
            }
            r.checkProgress();
            if (user != null) {
                while (!r.window.tryAcquire(1, TimeUnit.SECONDS)) {
                    r.checkProgress();
                }
                send(r, user, kind, nodeOf.applyAsInt(user));
            }
        }
        round = null;
        LoadResult result = r.result();
        write(result.summary());
        return result;
    }

    private void write(String line) {
        try {
            Files.writeString(log, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void send(LoadRound r, int user, Kind kind, int node) {
        long number = ++cseq[user];
        byte[] bytes = request(user, number, kind, node);
        LoadRound.Sent sent = new LoadRound.Sent(user, number, node, bytes, System.nanoTime());
        r.open(sent);
        transmit(sent);
        timers.schedule(() -> retransmit(r, sent, T1), T1, TimeUnit.MILLISECONDS);
    }

    /** Timer E: the same bytes again while unanswered, at T1, 2 T1, ... up to T2; Timer F ends it. */
    private void retransmit(LoadRound r, LoadRound.Sent sent, long interval) {
        if (!r.isOpen(sent)) {
            return;
        }
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent.at());
        if (elapsed >= TIMER_F) {
            r.unanswered(sent);
            return;
        }
        transmit(sent);
        r.retransmitted();
        long next = Math.min(Math.min(interval * 2, T2), Math.max(1, TIMER_F - elapsed));
        timers.schedule(() -> retransmit(r, sent, next), next, TimeUnit.MILLISECONDS);
    }

    private void transmit(LoadRound.Sent sent) {
        try {
            sockets[sent.node()].send(ByteBuffer.wrap(sent.bytes()), nodes.get(sent.node()));
        } catch (IOException e) {
            throw new UncheckedIOException("sending to node " + sent.node(), e); // loopback refuses nothing
        }
    }

    private byte[] request(int user, long number, Kind kind, int node) {
        String aor = "sip:" + user(user) + "@" + domain;
        StringBuilder b = new StringBuilder(400)
                .append("REGISTER sip:").append(domain).append(" SIP/2.0\r\n")
                .append("Via: SIP/2.0/UDP 127.0.0.1:").append(port(node))
                .append(";branch=z9hG4bK").append(nonce).append('.').append(user).append('.').append(number)
                .append(";rport\r\n")
                .append("Max-Forwards: 70\r\n")
                .append("From: <").append(aor).append(">;tag=").append(nonce).append(user).append("\r\n")
                .append("To: <").append(aor).append(">\r\n")
                .append("Call-ID: ").append(callId(user)).append("\r\n")
                .append("CSeq: ").append(number).append(" REGISTER\r\n");
        if (kind == Kind.BIND) {
            b.append("Contact: <").append(contact(user)).append(">\r\n").append("Expires: 3600\r\n");
        }
        return b.append("Content-Length: 0\r\n\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    private String callId(int user) {
        return user(user) + "-" + nonce;
    }

    /** The user a Call-ID of ours names, or -1. */
    private int userOf(String callId) {
        if (callId == null || !callId.startsWith(prefix) || !callId.endsWith("-" + nonce)) {
            return -1;
        }
        try {
            return Integer.parseInt(callId, prefix.length(), callId.length() - nonce.length() - 1, 10);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private int port(int socket) {
        try {
            return ((InetSocketAddress) sockets[socket].getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void receive(DatagramChannel socket) {
        ByteBuffer buffer = ByteBuffer.allocate(65_535);
        while (true) {
            buffer.clear();
            try {
                socket.receive(buffer);
            } catch (ClosedChannelException closed) {
                return;
            } catch (IOException e) {
                continue; // an ICMP error of an earlier send; the request's timer sends it again
            }
            SipResponse response = SipResponse.parse(new String(buffer.array(), 0, buffer.position(),
                    StandardCharsets.ISO_8859_1));
            LoadRound r = round;
            if (response != null && r != null) {
                r.answered(userOf(response.callId()), response, this::retryLater);
            }
        }
    }

    /** Puts a refused user back in the round's queue once the Retry-After has passed. */
    private void retryLater(LoadRound r, int user, long seconds) {
        timers.schedule(() -> r.due.add(user), seconds, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws IOException, InterruptedException {
        timers.shutdownNow();
        for (DatagramChannel socket : sockets) {
            socket.close();
        }
        for (Thread receiver : receivers) {
            receiver.join(5_000);
        }
    }
}
