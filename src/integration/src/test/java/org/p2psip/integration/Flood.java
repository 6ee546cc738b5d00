package org.p2psip.integration;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Strangers at an overlay port, in rounds until stopped: each round opens {@link #CONNECTIONS}
 * connections at once from eight loopback source addresses (so that both the per-source and the
 * total cap of a node's strangers are met), and on each writes a length prefix announcing a
 * 4 MiB frame followed by 1 MiB of garbage, as fast as the node takes it. A round ends when the
 * node has closed every connection, or after {@link #ROUND_MILLIS}; what is still open then was
 * not closed by the node. One thread (a selector), bounded in rounds and time.
 */
final class Flood {

    static final int CONNECTIONS = 500;
    static final int ANNOUNCED = 4 << 20;
    static final int GARBAGE = 1 << 20;
    static final long ROUND_MILLIS = 15_000;
    static final int MAX_ROUNDS = 40;

    /** What the rounds saw, summed. */
    record Round(int rounds, int connections, int closedByNode, long bytesSent) {
        Round plus(Round r) {
            return new Round(rounds + r.rounds, connections + r.connections, closedByNode + r.closedByNode,
                    bytesSent + r.bytesSent);
        }
    }

    private final InetSocketAddress target;
    private final AtomicBoolean stopped = new AtomicBoolean();
    /** The bytes every connection sends: the length prefix, then the garbage. Read-only, shared. */
    private final ByteBuffer payload;

    Flood(String hostPort) {
        String[] parts = hostPort.split(":");
        this.target = new InetSocketAddress(parts[0], Integer.parseInt(parts[1]));
        byte[] garbage = new byte[GARBAGE];
        new Random(1).nextBytes(garbage);
        this.payload = ByteBuffer.allocate(4 + GARBAGE).putInt(ANNOUNCED).put(garbage).flip().asReadOnlyBuffer();
    }

    void stop() {
        stopped.set(true);
    }

    /** Rounds until {@link #stop()} (at least one, at most {@link #MAX_ROUNDS}). */
    Round untilStopped() {
        var total = new Round(0, 0, 0, 0);
        do {
            try {
                total = total.plus(round());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        } while (!stopped.get() && total.rounds() < MAX_ROUNDS);
        return total;
    }

    private Round round() throws IOException {
        int closed = 0;
        long sent = 0;
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < CONNECTIONS; i++) {
                SocketChannel channel = SocketChannel.open();
                channel.configureBlocking(false);
                channel.bind(new InetSocketAddress("127.0.0." + (2 + i % 8), 0));
                boolean connected = channel.connect(target);
                ByteBuffer data = payload.duplicate(); // a position of its own over the shared bytes
                channel.register(selector, connected ? SelectionKey.OP_WRITE | SelectionKey.OP_READ : SelectionKey.OP_CONNECT,
                        data);
            }
            long deadline = System.currentTimeMillis() + ROUND_MILLIS;
            var sink = ByteBuffer.allocate(4096);
            while (closed < CONNECTIONS && System.currentTimeMillis() < deadline) {
                selector.select(100);
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    SocketChannel channel = (SocketChannel) key.channel();
                    try {
                        if (key.isConnectable() && channel.finishConnect()) {
                            key.interestOps(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
                        } else if (key.isReadable() && channel.read(sink.clear()) < 0) {
                            throw new IOException("closed by the node");
                        } else if (key.isWritable()) {
                            ByteBuffer data = (ByteBuffer) key.attachment();
                            sent += channel.write(data);
                            if (!data.hasRemaining()) {
                                key.interestOps(SelectionKey.OP_READ); // all sent: wait for the node to close it
                            }
                        }
                    } catch (IOException closedOrReset) {
                        closed++;
                        key.cancel();
                        channel.close();
                    }
                }
            }
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
        }
        return new Round(1, CONNECTIONS, closed, sent);
    }
}
