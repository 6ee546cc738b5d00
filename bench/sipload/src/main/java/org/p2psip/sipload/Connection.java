package org.p2psip.sipload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;

/**
 * One phone's TCP connection: its channel, its local address (the phone's Via and Contact), the
 * framing of what it reads and the bytes it could not write yet. Reads and writes plain bytes; a
 * TLS connection would be its own class doing the same over an SSLEngine (handshake, wrap and
 * unwrap), feeding the same {@link StreamFramer}. Used by the load's one thread only.
 */
final class Connection {
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

    /** Sends {@code bytes}, now as far as the socket takes them, the rest when it is writable (or connected). */
    void write(byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (connected && unsent == null) {
            channel.write(buffer);
            if (!buffer.hasRemaining()) {
                return;
            }
        }
        if (unsent == null) {
            unsent = new ArrayDeque<>(2);
        }
        unsent.add(buffer);
        if (connected) {
            key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        }
    }

    /** Once connected or writable again: what waited goes out, in order. */
    void flush() throws IOException {
        while (unsent != null && !unsent.isEmpty()) {
            ByteBuffer head = unsent.peek();
            channel.write(head);
            if (head.hasRemaining()) {
                key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                return;
            }
            unsent.poll();
        }
        unsent = null;
        key.interestOps(SelectionKey.OP_READ);
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
