package org.p2psip.sipload;

import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLEngine;

/**
 * The CPU-heavy steps of TLS handshakes (an SSLEngine's delegated tasks: the server's certificate
 * checked, keys agreed) run on a few threads of their own, so that a burst of handshakes does not
 * stall the selector thread that every other connection's reads, writes and timers wait on. A
 * connection whose tasks are done is queued and the selector woken; the load's thread takes it
 * back with {@link #done}.
 */
final class HandshakeTasks implements AutoCloseable {
    private final ExecutorService threads;
    private final Selector selector;
    private final Queue<TlsConnection> done = new ConcurrentLinkedQueue<>();

    HandshakeTasks(int threadCount, Selector selector) {
        var number = new AtomicInteger();
        this.threads = Executors.newFixedThreadPool(threadCount, task -> {
            var thread = new Thread(task, "sipload-tls-" + number.incrementAndGet());
            thread.setDaemon(true); // a stuck task must not keep the process from ending
            return thread;
        });
        this.selector = selector;
    }

    /** Runs every task {@code engine} has for {@code connection}, then hands the connection back. */
    void run(SSLEngine engine, TlsConnection connection) {
        List<Runnable> tasks = new ArrayList<>(2);
        for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
            tasks.add(task);
        }
        run(tasks, connection);
    }

    /** Runs {@code tasks} (the connection's engine is theirs meanwhile), then hands the connection back. */
    void run(List<Runnable> tasks, TlsConnection connection) {
        threads.execute(() -> {
            try {
                tasks.forEach(Runnable::run);
            } finally {
                // a task's failure is the engine's to report at the next wrap or unwrap, on the load's thread
                done.add(connection);
                selector.wakeup();
            }
        });
    }

    /** A connection whose tasks finished since the last call, or null. Load's thread only. */
    TlsConnection done() {
        return done.poll();
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
