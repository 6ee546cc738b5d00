package org.p2psip.dht.ring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.DhtException;

/**
 * The one thread a node's ring state lives on. Thread confinement instead of locks: the routing
 * table, the store and the membership are used only here, and every other thread hops on with
 * {@link #call}. Chord runs on its transport's Netty event loop, Bryan on an executor of its own.
 * Once the executor is shut down, work given to it is dropped: the node is closed.
 *
 * <p>The loop also keeps the node's time ({@link #nanoTime}): the machine's monotonic clock in a
 * deployment, the simulated one when many nodes run in virtual time. Node code reads time here,
 * never from {@code System.nanoTime}, so that its timeouts are the executor's.
 */
public final class NodeThread {

    private final ScheduledExecutorService executor;
    private final BooleanSupplier inLoop;
    private final LongSupplier nanos;

    /** A loop on the machine's clock. @param inLoop whether the calling thread is the executor's */
    public NodeThread(ScheduledExecutorService executor, BooleanSupplier inLoop) {
        this(executor, inLoop, System::nanoTime);
    }

    /** @param nanos the clock the executor schedules by, in nanoseconds (only differences count) */
    public NodeThread(ScheduledExecutorService executor, BooleanSupplier inLoop, LongSupplier nanos) {
        this.executor = executor;
        this.inLoop = inLoop;
        this.nanos = nanos;
    }

    /** Now, on the clock the executor schedules by: only differences between two readings mean anything. */
    public long nanoTime() {
        return nanos.getAsLong();
    }

    public boolean inLoop() {
        return inLoop.getAsBoolean();
    }

    /** Runs {@code work} on the loop later; dropped when the node is closed. */
    public void execute(Runnable work) {
        try {
            executor.execute(work);
        } catch (RejectedExecutionException e) {
            // closed: nothing is left to do
        }
    }

    /** Runs {@code work} on the loop after {@code millis}; null when the node is closed. */
    public ScheduledFuture<?> schedule(Runnable work, long millis) {
        try {
            return executor.schedule(work, millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    /** Runs {@code work} every {@code millis}, first after {@code millis}; null when the node is closed. */
    public ScheduledFuture<?> every(Runnable work, long millis) {
        try {
            return executor.scheduleWithFixedDelay(work, millis, millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    /**
     * Runs {@code work} on the loop (at once when already there) and completes with its result,
     * a failure as the DhtException it carries; CLOSED when the loop no longer takes work.
     */
    public <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> work, String who) {
        if (inLoop()) {
            return work.get();
        }
        var result = new CompletableFuture<T>();
        try {
            executor.execute(() -> work.get().whenComplete((value, failure) -> {
                if (failure != null) {
                    result.completeExceptionally(DhtException.from(failure));
                } else {
                    result.complete(value);
                }
            }));
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new DhtException(Reason.CLOSED, who + " is closed"));
        }
        return result;
    }
}
