package org.p2psip.dht.bamboo.storage;

import com.sleepycat.je.Transaction;
import java.util.concurrent.CompletableFuture;

/**
 * How a node's storage work meets JE: {@link GroupCommit} on a storage thread of the node's
 * environment, with one fsync per batch (a deployment); {@link DirectCommit} on the caller's
 * thread, each write committed at once without sync (a simulation of many nodes in one
 * environment, where a run must stay on one thread). Either way every read-modify-write of a node
 * is serialised, which is how a key's root orders compare-and-set.
 */
interface Commit extends AutoCloseable {

    /** Work run against JE; {@code txn} is null for reads. */
    interface Work<T> {
        T run(Transaction txn);
    }

    /** Runs {@code work} (in a transaction of its own if it {@code writes}); the stage says how it went. */
    <T> CompletableFuture<T> submit(Work<T> work, boolean writes);

    /** Operations waiting to run. */
    int queued();

    /** Stops taking work; what was queued before is finished. */
    @Override
    void close();
}
