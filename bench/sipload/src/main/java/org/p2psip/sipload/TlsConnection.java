package org.p2psip.sipload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * One phone's TLS connection (RFC 3261 §26.2.1): a {@link Connection} whose bytes pass through an
 * SSLEngine, non-blocking like the rest. Once TCP is connected the handshake starts; what the phone
 * writes before it ends waits as plaintext; the engine's delegated tasks run on {@link
 * HandshakeTasks}, reads paused meanwhile (the engine can take no record then), and {@link #resume}
 * goes on from there. The records a read leaves incomplete are the only bytes a connection keeps
 * between reads: the buffers records are read, unwrapped and wrapped in are {@link TlsClient}'s,
 * shared, so that thousands of idle connections hold little. Used by the load's one thread only
 * (but for the tasks, which touch the engine alone).
 */
final class TlsConnection extends Connection {
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
    private final SSLEngine engine;
    private final TlsClient tls;
    private final HandshakeTasks tasks;
    private final ConnectionTally tally;
    private ArrayDeque<byte[]> waiting; // plaintext written during the handshake, or while a task runs
    private byte[] partial;             // the start of a record the last read did not complete
    private long handshakeStartNanos;
    private boolean handshaken;
    private boolean tasksRunning;
    private ByteBuffer hello;           // the ClientHello, wrapped by a task thread, to be written on resume
    private IOException helloFailure;   // or why it could not be

    TlsConnection(SocketChannel channel, RegisterRequest.Local local, Phone phone, SSLEngine engine, TlsClient tls,
                  HandshakeTasks tasks, ConnectionTally tally) {
        super(channel, local, phone);
        this.engine = engine;
        this.tls = tls;
        this.tasks = tasks;
        this.tally = tally;
    }

    /**
     * TCP is connected: the ClientHello is made on a task thread (its key share is a key pair
     * generated: as much CPU as a delegated task) and written when it comes back.
     */
    @Override
    void connectedNow() throws IOException {
        connected = true;
        handshakeStartNanos = System.nanoTime();
        tasksRunning = true;
        updateInterest();
        int size = engine.getSession().getPacketBufferSize();
        tasks.run(java.util.List.of(() -> {
            try {
                engine.beginHandshake();
                ByteBuffer out = ByteBuffer.allocate(size);
                engine.wrap(NOTHING, out);
                hello = out.flip();
            } catch (IOException | RuntimeException e) {
                helloFailure = e instanceof IOException io ? io : new SSLException(e);
            }
        }), this);
    }

    @Override
    boolean handshaking() {
        return !handshaken;
    }

    @Override
    boolean readable() {
        return !tasksRunning;
    }

    @Override
    void write(byte[] bytes) throws IOException {
        if (!handshaken || tasksRunning) {
            if (waiting == null) {
                waiting = new ArrayDeque<>(2);
            }
            waiting.add(bytes);
            return;
        }
        ByteBuffer plain = ByteBuffer.wrap(bytes);
        while (plain.hasRemaining()) {
            SSLEngineResult result = wrap(plain);
            if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new SSLException("TLS connection closed");
            }
            if (result.bytesConsumed() == 0 && result.bytesProduced() == 0) {
                throw new SSLException("the TLS engine took no data"); // rather than spin on it
            }
        }
        advance();
    }

    /** Wraps from {@code plain} into one record (or a handshake flight) and writes it. */
    private SSLEngineResult wrap(ByteBuffer plain) throws IOException {
        while (true) {
            ByteBuffer out = tls.netOut;
            out.clear();
            SSLEngineResult result = engine.wrap(plain, out);
            if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                tls.netOut = TlsClient.grown(out);
                continue;
            }
            out.flip();
            if (out.hasRemaining()) {
                writeWire(out, true);
            }
            return result;
        }
    }

    /** Moves the handshake on as far as it goes without the server: wraps what is to be sent, starts tasks, notes the end. */
    private void advance() throws IOException {
        while (!tasksRunning) {
            switch (engine.getHandshakeStatus()) {
                case NEED_WRAP -> {
                    SSLEngineResult result = wrap(NOTHING);
                    if (result.getStatus() == SSLEngineResult.Status.CLOSED
                            || result.bytesProduced() == 0 && result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                        return; // closed, or nothing to show for it: not a loop to spin in
                    }
                }
                case NEED_TASK -> {
                    tasksRunning = true;
                    updateInterest();
                    tasks.run(engine, this);
                }
                case NOT_HANDSHAKING, FINISHED -> {
                    if (!handshaken) {
                        finished();
                    }
                    return;
                }
                default -> {
                    return; // NEED_UNWRAP: the server's turn
                }
            }
        }
    }

    private void finished() throws IOException {
        handshaken = true;
        tally.handshakes++;
        tally.handshakeTimes.record((System.nanoTime() - handshakeStartNanos) / 1000);
        sendWaiting();
    }

    private void sendWaiting() throws IOException {
        ArrayDeque<byte[]> queued = waiting;
        waiting = null;
        while (queued != null && !queued.isEmpty()) {
            write(queued.poll());
        }
    }

    /**
     * The handshake's tasks are done: goes on with the handshake, then with the records that
     * waited (kept, or still in the socket). False when the server closed; IOException when the
     * handshake failed (a task's failure, the server's certificate refused, comes out here).
     */
    boolean resume(StreamFramer.Sink sink) throws IOException {
        if (closed) {
            return true;
        }
        tasksRunning = false;
        updateInterest();
        if (helloFailure != null) {
            throw helloFailure;
        }
        if (hello != null) {
            writeWire(hello, false);
            hello = null;
        }
        if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_UNWRAP) {
            // an engine reports a failed task at its next wrap or unwrap: make it now rather than at Timer F
            ByteBuffer app = tls.appIn;
            app.clear();
            engine.unwrap(NOTHING, app);
        }
        advance();
        if (handshaken && !tasksRunning) {
            sendWaiting();
        }
        return read(null, sink);
    }

    /** Reads what the socket holds (after what an earlier read left), unwraps it and frames the plaintext. */
    @Override
    boolean read(ByteBuffer unused, StreamFramer.Sink sink) throws IOException {
        while (!closed && !tasksRunning) {
            ByteBuffer in = tls.netIn;
            in.clear();
            if (partial != null) {
                in.put(partial);
                partial = null;
            }
            int n = channel.read(in);
            in.flip();
            boolean open = !in.hasRemaining() || unwrap(in, sink);
            if (in.hasRemaining() && !closed) {
                partial = new byte[in.remaining()];
                in.get(partial);
            }
            if (!open || n < 0) {
                return false;
            }
            if (n == 0 || in.limit() < in.capacity()) {
                return true;
            }
        }
        return true;
    }

    /** Unwraps every whole record of {@code in}; false when the server's close_notify came. */
    private boolean unwrap(ByteBuffer in, StreamFramer.Sink sink) throws IOException {
        while (in.hasRemaining() && !closed && !tasksRunning) {
            ByteBuffer app = tls.appIn;
            app.clear();
            SSLEngineResult result = engine.unwrap(in, app);
            if (app.position() > 0) {
                framer.feed(app.array(), 0, app.position(), sink);
            }
            switch (result.getStatus()) {
                case BUFFER_UNDERFLOW -> {
                    return true; // the rest of the record is still on its way
                }
                case BUFFER_OVERFLOW -> tls.appIn = TlsClient.grown(app);
                case CLOSED -> {
                    return false;
                }
                default -> {
                    // OK: a record consumed
                }
            }
            if (!closed) {
                advance();
            }
        }
        return true;
    }

    /** Says close_notify when it can without waiting (best effort: the socket closes right after), then closes. */
    @Override
    void close() {
        // not after bytes that wait: a record out of order would be an error on the server's side
        if (!closed && connected && !tasksRunning && allSent()) {
            try {
                engine.closeOutbound();
                ByteBuffer out = tls.netOut;
                out.clear();
                engine.wrap(NOTHING, out);
                out.flip();
                channel.write(out);
            } catch (IOException | RuntimeException e) {
                // closing anyway: the server sees the connection end without it
            }
        }
        super.close();
    }
}
