package org.p2psip.dht.hazelcast;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.p2psip.dht.DhtException;

/**
 * Gives every operation a deadline: the stage handed to the caller completes with the map's answer
 * or, if none came in time, with {@link DhtException.Reason#TIMEOUT}. One daemon timer thread that
 * only completes futures; the caller's continuations run on whichever thread completes first (a
 * Hazelcast thread or the timer). Thread-safe.
 */
final class Deadlines implements AutoCloseable {

    private final Duration timeout;
    private final ScheduledThreadPoolExecutor timer;

    Deadlines(Duration timeout, String threadName) {
        this.timeout = timeout;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        // Most operations finish long before their deadline: drop cancelled timers at once.
        timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * {@code stage}'s outcome, its failures translated by {@code translate}, or TIMEOUT after the
     * deadline, whichever comes first.
     */
    <T> CompletionStage<T> bound(String what, CompletionStage<T> stage, Function<Throwable, DhtException> translate) {
        var result = new CompletableFuture<T>();
        ScheduledFuture<?> expiry = timer.schedule(() -> result.completeExceptionally(new DhtException(
                DhtException.Reason.TIMEOUT, what + ": no answer from the cluster within " + timeout.toMillis() + " ms")),
                timeout.toNanos(), TimeUnit.NANOSECONDS);
        stage.whenComplete((value, failure) -> {
            expiry.cancel(false);
            if (failure == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(translate.apply(failure));
            }
        });
        return result;
    }

    Duration timeout() {
        return timeout;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
