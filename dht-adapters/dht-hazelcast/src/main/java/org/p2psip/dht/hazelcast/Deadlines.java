package org.p2psip.dht.hazelcast;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.p2psip.dht.DhtException;

/**
 * Gives every operation a deadline and completes the caller's stage on the {@code callbacks}
 * executor: with the map's answer or, if none came in time, with {@link DhtException.Reason#TIMEOUT}.
 *
 * <p>Why a callbacks executor: Hazelcast completes its futures on its response or partition
 * threads, and those refuse to start another remote call ("cannot make remote call"), so a caller
 * that chains a put on a get must not run there; and a Hazelcast future's own dependents run on
 * Hazelcast's default executor, which on a machine of two cores starts a new thread per callback.
 *
 * <p>Why one queue and no timer per operation: every operation has the same timeout, so deadlines
 * fall in the order operations start. They wait in one lock-free FIFO queue, and one daemon thread,
 * ticking every twentieth of the timeout (5 to 100 ms), fails those at the head whose deadline has
 * passed and drops those already answered; an operation fails at most one tick after its deadline.
 * A timer per operation ({@code ScheduledThreadPoolExecutor}, {@code CompletableFuture.orTimeout})
 * takes a lock on every start and every answer, which cost more than the map call on a busy node.
 *
 * <p>Thread-safe.
 */
final class Deadlines implements AutoCloseable {

    /** The operation's name and key are kept apart and joined only for a failure message. */
    private record Pending(long deadlineNanos, CompletableFuture<?> result, String op, String key) {
    }

    private final Duration timeout;
    private final Executor callbacks;
    private final Queue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final ScheduledExecutorService ticker;

    Deadlines(Duration timeout, Executor callbacks, String threadName) {
        this.timeout = timeout;
        this.callbacks = callbacks;
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        long tick = Math.min(100, Math.max(5, timeout.toMillis() / 20));
        ticker.scheduleWithFixedDelay(this::expire, tick, tick, TimeUnit.MILLISECONDS);
    }

    /**
     * {@code stage}'s answer read by {@code read}, or its failure translated by {@code translate}, or
     * TIMEOUT after the deadline, whichever comes first; completed on the callbacks executor.
     */
    <S, T> CompletionStage<T> bound(String op, String key, CompletionStage<S> stage, Function<S, T> read,
                                    Function<Throwable, DhtException> translate) {
        var result = new CompletableFuture<T>();
        pending.add(new Pending(System.nanoTime() + timeout.toNanos(), result, op, key));
        stage.whenCompleteAsync((value, failure) -> {
            if (failure != null) {
                result.completeExceptionally(translate.apply(failure));
                return;
            }
            try {
                result.complete(read.apply(value));
            } catch (RuntimeException e) {
                result.completeExceptionally(translate.apply(e));
            }
        }, callbacks);
        return result;
    }

    /** Runs on the tick thread only, so what it peeks is what it polls. */
    private void expire() {
        long now = System.nanoTime();
        for (Pending head = pending.peek(); head != null; head = pending.peek()) {
            boolean answered = head.result().isDone();
            if (!answered && head.deadlineNanos() - now > 0) {
                return;
            }
            pending.poll();
            if (!answered) {
                var late = new DhtException(DhtException.Reason.TIMEOUT,
                        head.op() + " " + head.key() + ": no answer from the cluster within " + timeout.toMillis() + " ms");
                CompletableFuture<?> result = head.result();
                callbacks.execute(() -> result.completeExceptionally(late));
            }
        }
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}
