package org.p2psip.dht.bamboo.storage;

import com.sleepycat.je.DatabaseException;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentFailureException;
import com.sleepycat.je.Transaction;
import com.sleepycat.je.TransactionConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * The one thread that touches a JE environment. Callers queue work and get a stage at once; the
 * thread takes whatever is queued (up to a batch), runs each write in its own transaction
 * committed without sync, then makes the whole batch durable with one fsync before completing any
 * of it: an acknowledged write survives a crash, and the disk's fsync rate does not cap the write
 * rate (group commit). Running everything on one thread also serialises every read-modify-write,
 * which is how a key's root orders compare-and-set.
 *
 * <p>A full queue refuses at once ({@link Reason#OVERLOADED}); a JE failure fails the work with
 * {@link Reason#STORAGE}; an environment JE declares broken fails all later work the same way.
 * Stages are completed on {@code callbacks}, never on the storage thread. Thread-safe.
 */
final class GroupCommit implements Commit {

    private record Task<T>(Work<T> work, boolean writes, CompletableFuture<T> result) {
    }

    private static final Task<Void> STOP = new Task<>(txn -> null, false, new CompletableFuture<>());

    private final Environment env;
    private final BlockingQueue<Task<?>> queue;
    private final int batchLimit;
    private final boolean fsync;
    private final Executor callbacks;
    private final TransactionConfig txnConfig = new TransactionConfig().setDurability(Durability.COMMIT_WRITE_NO_SYNC);
    private final Thread thread;
    private final Counters counters;
    private volatile boolean closed;
    private volatile RuntimeException broken;

    /** Counts {@link JeStorage#WRITES}, {@link JeStorage#FSYNCS} and {@link JeStorage#REFUSED} in {@code counters}. */
    GroupCommit(Environment env, int capacity, int batchLimit, boolean fsync, Executor callbacks, String name,
                Counters counters) {
        this.env = env;
        this.counters = counters;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.batchLimit = Math.max(1, batchLimit);
        this.fsync = fsync;
        this.callbacks = callbacks;
        this.thread = new Thread(this::loop, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public <T> CompletableFuture<T> submit(Work<T> work, boolean write) {
        var task = new Task<>(work, write, new CompletableFuture<T>());
        if (closed) {
            return CompletableFuture.failedFuture(new DhtException(Reason.CLOSED, "the storage is closed"));
        }
        if (!queue.offer(task)) {
            counters.increment(JeStorage.REFUSED);
            return CompletableFuture.failedFuture(new DhtException(Reason.OVERLOADED,
                    "storage queue full (" + queue.size() + " operations waiting)"));
        }
        return task.result();
    }

    @Override
    public int queued() {
        return queue.size();
    }

    /** Stops taking work, finishes what was queued before, and waits for the thread. */
    @Override
    public void close() {
        closed = true;
        while (!queue.offer(STOP)) {
            Thread.onSpinWait(); // the thread is draining a full queue; a place frees soon
        }
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        List<Task<?>> batch = new ArrayList<>(batchLimit);
        while (true) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            queue.drainTo(batch, batchLimit - 1);
            boolean stop = batch.remove(STOP);
            runBatch(batch);
            batch.clear();
            if (stop) {
                failRemaining();
                return;
            }
        }
    }

    private void runBatch(List<Task<?>> batch) {
        List<Runnable> completions = new ArrayList<>(batch.size());
        List<CompletableFuture<?>> written = new ArrayList<>();
        for (Task<?> task : batch) {
            completions.add(run(task, written));
        }
        if (!written.isEmpty() && fsync) {
            try {
                env.flushLog(true);
                counters.increment(JeStorage.FSYNCS);
            } catch (RuntimeException e) {
                markBroken(e);
                DhtException failure = storageFailure("fsync of " + written.size() + " writes failed", e);
                written.forEach(f -> hand(() -> f.completeExceptionally(failure)));
            }
        }
        completions.forEach(this::hand);
    }

    /** Completes on the callers' executor; if that one has shut down, here rather than never. */
    private void hand(Runnable completion) {
        try {
            callbacks.execute(completion);
        } catch (RuntimeException rejected) {
            completion.run();
        }
    }

    /** Runs one task and returns how to complete it; a write that committed is added to {@code written}. */
    private <T> Runnable run(Task<T> task, List<CompletableFuture<?>> written) {
        CompletableFuture<T> f = task.result();
        if (broken != null) {
            DhtException failure = storageFailure("storage environment failed earlier", broken);
            return () -> f.completeExceptionally(failure);
        }
        Transaction txn = null;
        try {
            txn = task.writes() ? env.beginTransaction(null, txnConfig) : null;
            T value = task.work().run(txn);
            if (txn != null) {
                txn.commit();
                counters.increment(JeStorage.WRITES);
                written.add(f);
            }
            return () -> f.complete(value);
        } catch (DatabaseException e) {
            abort(txn);
            markBroken(e);
            DhtException failure = storageFailure("storage operation failed", e);
            return () -> f.completeExceptionally(failure);
        } catch (RuntimeException e) {
            abort(txn); // not JE's fault: the work refused its input
            return () -> f.completeExceptionally(e);
        }
    }

    private void markBroken(RuntimeException e) {
        if (e instanceof EnvironmentFailureException || !env.isValid()) {
            broken = e;
        }
    }

    private static void abort(Transaction txn) {
        if (txn != null) {
            try {
                txn.abort();
            } catch (RuntimeException ignored) {
                // the environment is already failing; the caller reports the first error
            }
        }
    }

    private void failRemaining() {
        List<Task<?>> rest = new ArrayList<>();
        queue.drainTo(rest);
        var failure = new DhtException(Reason.CLOSED, "the storage is closed");
        rest.forEach(t -> hand(() -> t.result().completeExceptionally(failure)));
    }

    private static DhtException storageFailure(String what, RuntimeException cause) {
        return new DhtException(Reason.STORAGE, what + ": " + cause.getMessage(), cause);
    }
}
