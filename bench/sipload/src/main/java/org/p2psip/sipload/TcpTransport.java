package org.p2psip.sipload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.PriorityQueue;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Phones over TCP or TLS, every connection on one Selector, no thread per connection. Persistent: a
 * phone connects at its first REGISTER and keeps the connection (what the server sends it arrives
 * there); per transaction: a new connection per REGISTER, closed once its final answer came. No
 * socket listens: a connection is bound to the next --sources address (port chosen by the
 * system) before it connects, so that its address is known for the Via and Contact of the request
 * that waits for the connect. Requests that reach a phone are answered by its {@link UserAgent};
 * keep-alives (RFC 5626 §3.5.1) go out on persistent connections of registered phones. Over TLS
 * each connection is a {@link TlsConnection} (same framing, keep-alives and phones, through an
 * SSLEngine) and the handshakes' CPU-heavy tasks run on {@link HandshakeTasks}' few threads.
 */
final class TcpTransport implements LoadTransport {
    private static final int READ_BUFFER_BYTES = 64 * 1024;
    private final Selector selector;
    private final InetSocketAddress target;
    private final Sources sources;
    private final boolean persistent;
    private final long keepaliveSeconds; // 0: each phone's Flow-Timer, when its 200 gave one
    private final UserAgent agent;
    private final TlsClient tls;         // null over plain TCP
    private final HandshakeTasks tasks;  // null over plain TCP
    private boolean handshakeFailureTold;
    private final ConnectionTally tally = new ConnectionTally();
    private final ByteBuffer readBuffer = ByteBuffer.allocate(READ_BUFFER_BYTES);
    private final PriorityQueue<Due> timers = new PriorityQueue<>();
    private final ArrayDeque<Phone> lostMeanwhile = new ArrayDeque<>(); // write failures, told at the next await

    /** A keep-alive due on a connection ({@code branch} null), or the end of an INVITE's ringing. */
    private record Due(long nanos, Connection connection, String branch) implements Comparable<Due> {
        @Override
        public int compareTo(Due other) {
            return Long.compare(nanos, other.nanos);
        }
    }

    /** {@code tls}: null for plain TCP, else how connections speak TLS. */
    TcpTransport(InetSocketAddress target, Sources sources, boolean persistent, long keepaliveSeconds,
                 UserAgent agent, TlsClient tls) throws IOException {
        this.selector = Selector.open();
        this.tls = tls;
        // a thread per core: the selector thread's share of a handshake is small, and waits while they work
        this.tasks = tls == null ? null : new HandshakeTasks(Runtime.getRuntime().availableProcessors(), selector);
        this.target = target;
        this.sources = sources;
        this.persistent = persistent;
        this.keepaliveSeconds = keepaliveSeconds;
        this.agent = agent;
    }

    @Override
    public String name() {
        return tls == null ? "tcp" : "tls";
    }

    @Override
    public boolean retransmits() {
        return false;
    }

    @Override
    public boolean ready(Phone phone, long now) {
        if (persistent && phone.connection != null) {
            return true;
        }
        Connection connection = open(phone);
        if (connection == null) {
            return false;
        }
        phone.connection = connection;
        phone.via = connection.local;
        // Per transaction the phone keeps its first Contact: a new one per REGISTER would add a binding each time.
        if (persistent || phone.contactUri.isEmpty()) {
            phone.contactUri = RegisterRequest.contactUri(phone.user, connection.local, name());
        }
        return true;
    }

    /** A new connection of {@code phone}'s, connecting; null when not even that worked (counted refused). */
    private Connection open(Phone phone) {
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true); // one small request at a time: no batching delay
            channel.bind(new InetSocketAddress(sources.next(), 0));
            var bound = (InetSocketAddress) channel.getLocalAddress();
            var local = new RegisterRequest.Local(bound.getAddress().getHostAddress(), bound.getPort());
            var connection = tls == null ? new Connection(channel, local, phone)
                    : new TlsConnection(channel, local, phone, tls.engine(phone), tls, tasks, tally);
            boolean connectedAtOnce = channel.connect(target);
            connection.key = channel.register(selector, connectedAtOnce ? 0 : SelectionKey.OP_CONNECT, connection);
            if (connectedAtOnce) {
                connection.connectedNow();
            }
            tally.opened++;
            tally.open++;
            return connection;
        } catch (IOException e) {
            tally.refused++;
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // it never carried anything
                }
            }
            return null;
        }
    }

    @Override
    public void send(Phone phone, byte[] request) {
        Connection connection = phone.connection;
        try {
            connection.write(request);
        } catch (IOException e) {
            drop(connection);
            lostMeanwhile.add(phone);
        }
    }

    @Override
    public void finished(Phone phone, long now) {
        Connection connection = phone.connection;
        if (connection == null) {
            return;
        }
        if (!persistent) {
            close(connection);
            phone.connection = null;
            return;
        }
        long seconds = keepaliveSeconds > 0 ? keepaliveSeconds : Math.max(0, phone.flowTimer);
        if (phone.registered && seconds > 0 && connection.nextPingNanos < 0) {
            schedulePing(connection, now, seconds);
        }
    }

    /** RFC 5626 §4.4.1: the next ping between 80 and 100 % of the interval, so that phones spread out. */
    private void schedulePing(Connection connection, long now, long seconds) {
        double share = 0.8 + 0.2 * ThreadLocalRandom.current().nextDouble();
        connection.nextPingNanos = now + (long) (share * seconds * 1e9);
        timers.add(new Due(connection.nextPingNanos, connection, null));
    }

    @Override
    public void await(long deadlineNanos, Listener listener) throws IOException {
        LoadTransport.select(selector, timers.isEmpty() ? deadlineNanos : Math.min(deadlineNanos, timers.peek().nanos()));
        for (SelectionKey key : selector.selectedKeys()) {
            handle(key, listener);
        }
        selector.selectedKeys().clear();
        resumeHandshakes(listener);
        long now = System.nanoTime();
        while (!lostMeanwhile.isEmpty()) {
            listener.lost(lostMeanwhile.poll(), now);
        }
        expire(now);
    }

    private void handle(SelectionKey key, Listener listener) throws IOException {
        if (!key.isValid()) {
            return; // closed while an earlier key of this round was handled
        }
        var connection = (Connection) key.attachment();
        boolean wasConnected = connection.connected;
        try {
            if (key.isConnectable()) {
                connection.channel.finishConnect();
                wasConnected = true;
                connection.connectedNow();
            }
            if (key.isValid() && key.isWritable()) {
                connection.flush();
            }
            if (key.isValid() && key.isReadable()
                    && !connection.read(readBuffer, new Inbound(connection, listener))) {
                lose(connection, true, listener, null);
            }
        } catch (IOException e) {
            lose(connection, wasConnected, listener, e);
        }
    }

    /** TLS connections whose handshake tasks finished meanwhile go on with their handshakes. */
    private void resumeHandshakes(Listener listener) throws IOException {
        if (tasks == null) {
            return;
        }
        for (TlsConnection connection = tasks.done(); connection != null; connection = tasks.done()) {
            try {
                if (!connection.resume(new Inbound(connection, listener))) {
                    lose(connection, true, listener, null);
                }
            } catch (IOException e) {
                lose(connection, true, listener, e);
            }
        }
    }

    /**
     * The connection ended without us: refused while connecting, its TLS handshake failed (refused
     * by either side, or the server closed during it), else closed (or reset) by the server.
     */
    private void lose(Connection connection, boolean wasConnected, Listener listener, IOException cause)
            throws IOException {
        if (connection.closed) {
            return;
        }
        if (!wasConnected) {
            tally.refused++;
        } else if (connection.handshaking()) {
            tally.handshakeFailures++;
            tellFirstHandshakeFailure(cause);
        } else {
            tally.closedByServer++;
        }
        drop(connection);
        listener.lost(connection.phone, System.nanoTime());
    }

    /** Why the first handshake failed, on stderr (the summary only counts them): a wrong trust store says so here. */
    private void tellFirstHandshakeFailure(IOException cause) {
        if (!handshakeFailureTold) {
            handshakeFailureTold = true;
            System.err.println("sipload: TLS handshake with " + target.getHostString() + ":" + target.getPort()
                    + " failed: " + (cause == null ? "the server closed the connection" : cause.getMessage()));
        }
    }

    private void drop(Connection connection) {
        close(connection);
        if (connection.phone.connection == connection) {
            connection.phone.connection = null;
        }
    }

    private void close(Connection connection) {
        if (!connection.closed) {
            connection.close();
            tally.open--;
        }
    }

    /** Keep-alives and ringing INVITEs that are due. */
    private void expire(long now) {
        while (!timers.isEmpty() && timers.peek().nanos() <= now) {
            Due due = timers.poll();
            Connection connection = due.connection();
            if (connection.closed) {
                continue;
            }
            if (due.branch() != null) {
                byte[] ok = agent.ringEnded(connection.phone, due.branch());
                if (ok != null) {
                    write(connection, ok);
                }
            } else if (due.nanos() == connection.nextPingNanos) {
                if (connection.keepalive.pingSent()) {
                    tally.pongsDue++;
                }
                tally.pings++;
                write(connection, Keepalive.PING);
                long seconds = keepaliveSeconds > 0 ? keepaliveSeconds : Math.max(1, connection.phone.flowTimer);
                schedulePing(connection, now, seconds);
            }
        }
    }

    private void write(Connection connection, byte[] bytes) {
        try {
            connection.write(bytes);
        } catch (IOException e) {
            tally.closedByServer++;
            drop(connection);
            lostMeanwhile.add(connection.phone);
        }
    }

    /** What one connection's bytes carried: responses for the load, requests for the phone, keep-alives. */
    private final class Inbound implements StreamFramer.Sink {
        private final Connection connection;
        private final Listener listener;

        Inbound(Connection connection, Listener listener) {
            this.connection = connection;
            this.listener = listener;
        }

        @Override
        public void message(byte[] message) {
            if (connection.closed) {
                return; // closed by an earlier message of this read (a per-transaction final answer)
            }
            connection.keepalive.message();
            Response response = Response.parse(message, message.length);
            if (response != null) {
                respond(response);
                return;
            }
            Request request = Request.parse(message);
            if (request != null) {
                answer(request);
            }
        }

        private void respond(Response response) {
            try {
                listener.response(response, System.nanoTime());
            } catch (IOException e) {
                throw new UncheckedIOException(e); // the load's own failure (its log), not this connection's
            }
        }

        private void answer(Request request) {
            for (byte[] reply : agent.answer(request, connection.phone)) {
                write(connection, reply);
            }
            if (request.method().equals("INVITE") && agent.rings()) {
                timers.add(new Due(System.nanoTime() + agent.ringMillis() * 1_000_000L, connection, request.branch()));
            }
        }

        @Override
        public void crlf() {
            switch (connection.keepalive.crlf()) {
                case PONG -> {
                    tally.pongs++;
                    tally.pongsDue--;
                }
                case PING -> write(connection, Keepalive.PONG);
                default -> {
                    // half of a ping, or a CRLF nobody asked for
                }
            }
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public ConnectionTally connections() {
        return tally;
    }

    @Override
    public void close() throws IOException {
        for (SelectionKey key : new ArrayList<>(selector.keys())) {
            close((Connection) key.attachment());
        }
        if (tasks != null) {
            tasks.close();
        }
        selector.close();
    }
}
