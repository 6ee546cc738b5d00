package org.p2psip.dht.bamboo.storage;

import com.sleepycat.je.DatabaseException;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.Transaction;
import com.sleepycat.je.TransactionConfig;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * Storage work run on the caller's thread, for a simulation: the returned stage is complete when
 * {@link #submit} returns, each write is committed in its own transaction without sync (nothing
 * survives the JVM, and nothing need: the run is the experiment), and no thread is started, so
 * thousands of nodes share one environment and one simulation thread. The node's loop is the
 * caller, so every read-modify-write is serialised as on {@link GroupCommit}'s thread. A JE
 * failure fails the work with {@link Reason#STORAGE}; an environment JE declares broken fails all
 * later work the same way. Not thread-safe: one simulation thread calls it.
 */
final class DirectCommit implements Commit {

    private final Environment env;
    private final TransactionConfig txnConfig = new TransactionConfig().setDurability(Durability.COMMIT_NO_SYNC);
    private final Counters counters;
    private boolean closed;

    /** Counts {@link JeStorage#WRITES} in {@code counters}. */
    DirectCommit(Environment env, Counters counters) {
        this.env = env;
        this.counters = counters;
    }

    @Override
    public <T> CompletableFuture<T> submit(Work<T> work, boolean writes) {
        if (closed) {
            return CompletableFuture.failedFuture(new DhtException(Reason.CLOSED, "the storage is closed"));
        }
        if (!env.isValid()) {
            return CompletableFuture.failedFuture(new DhtException(Reason.STORAGE, "storage environment failed earlier"));
        }
        Transaction txn = null;
        try {
            txn = writes ? env.beginTransaction(null, txnConfig) : null;
            T value = work.run(txn);
            if (txn != null) {
                txn.commit();
                counters.increment(JeStorage.WRITES);
            }
            return CompletableFuture.completedFuture(value);
        } catch (DatabaseException e) {
            abort(txn);
            return CompletableFuture.failedFuture(new DhtException(Reason.STORAGE,
                    "storage operation failed: " + e.getMessage(), e));
        } catch (RuntimeException e) {
            abort(txn); // not JE's fault: the work refused its input
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public int queued() {
        return 0;
    }

    @Override
    public void close() {
        closed = true;
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
}
