package org.p2psip.sipload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;

/**
 * One phone's TCP connection: its channel, its local address (the phone's Via and Contact), the
 * framing of what it reads and the bytes it could not write yet. Reads and writes plain bytes;
 * {@link TlsConnection} does the same through an SSLEngine, feeding the same {@link StreamFramer}.
 * Used by the load's one thread only.
 */
class Connection {
    final SocketChannel channel;
    final RegisterRequest.Local local;
    final Phone phone;
    final StreamFramer framer = new StreamFramer();
    final Keepalive keepalive = new Keepalive();
    SelectionKey key;
    boolean connected;
    boolean closed;
    long nextPingNanos = -1;         // -1: no keep-alives on this connection (yet)
    private ArrayDeque<ByteBuffer> unsent; // null while everything went out: most connections, most of the time

    Connection(SocketChannel channel, RegisterRequest.Local local, Phone phone) {
        this.channel = channel;
        this.local = local;
        this.phone = phone;
    }

    /** The connect completed: what waited for it goes out. */
    void connectedNow() throws IOException {
        connected = true;
        flush();
    }

    /** Whether the connection is still being set up above TCP (a TLS handshake): a loss now is its failure. */
    boolean handshaking() {
        return false;
    }

    /** Sends {@code bytes}, now as far as the socket takes them, the rest when it is writable (or connected). */
    void write(byte[] bytes) throws IOException {
        writeWire(ByteBuffer.wrap(bytes), false);
    }

    /**
     * Puts {@code buffer}'s remaining bytes on the wire, now as far as the socket takes them, after
     * what waits; what is left waits for the socket, copied when {@code shared} (the buffer is reused).
     */
    final void writeWire(ByteBuffer buffer, boolean shared) throws IOException {
        if (connected && unsent == null) {
            channel.write(buffer);
            if (!buffer.hasRemaining()) {
                return;
            }
        }
        if (unsent == null) {
            unsent = new ArrayDeque<>(2);
        }
        unsent.add(shared ? copy(buffer) : buffer);
        updateInterest();
    }

    private static ByteBuffer copy(ByteBuffer buffer) {
        ByteBuffer own = ByteBuffer.allocate(buffer.remaining());
        own.put(buffer).flip();
        return own;
    }

    /** Once connected or writable again: what waited goes out, in order. */
    final void flush() throws IOException {
        while (unsent != null && !unsent.isEmpty()) {
            ByteBuffer head = unsent.peek();
            channel.write(head);
            if (head.hasRemaining()) {
                updateInterest();
                return;
            }
            unsent.poll();
        }
        unsent = null;
        updateInterest();
    }

    /** Whether nothing waits for the socket. */
    final boolean allSent() {
        return unsent == null;
    }

    /** What the selector should tell: input when {@link #readable}, writability while bytes wait. */
    final void updateInterest() {
        if (connected && key != null && key.isValid()) {
            key.interestOps((readable() ? SelectionKey.OP_READ : 0) | (unsent != null ? SelectionKey.OP_WRITE : 0));
        }
    }

    /** Whether input can be taken now (a TLS engine busy with a handshake task cannot). */
    boolean readable() {
        return true;
    }

    /**
     * Reads all that is there through {@code buffer} (shared by every connection) and frames it to
     * {@code sink}; false at the end of the stream (the server closed). Stops once the sink closed
     * this connection.
     */
    boolean read(ByteBuffer buffer, StreamFramer.Sink sink) throws IOException {
        while (!closed) {
            buffer.clear();
            int n = channel.read(buffer);
            if (n < 0) {
                return false;
            }
            if (n == 0) {
                return true;
            }
            framer.feed(buffer.array(), 0, n, sink);
            if (n < buffer.capacity()) {
                return true;
            }
        }
        return true;
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (key != null) {
            key.cancel();
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing: nothing left to do with it
        }
    }
}
