package org.p2psip.dht.ring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * One operation's attempts to reach its key's owner before its deadline: while the ring repairs
 * (no route yet, the node found is not the owner any more) the operation tries again after a short
 * pause; at the deadline it fails with TIMEOUT, naming the last failure, whatever is still under
 * way. Chord and Bryan make their attempts differently (a lookup then a request, or a routed
 * REGISTER); this keeps the deadline and the pauses. Not thread-safe: runs on the node's loop.
 *
 * @param <T> the operation's result
 */
public final class Attempts<T> {

    private final NodeThread loop;
    private final Object key;
    private final long deadlineNanos;
    private final long pauseMillis;
    private final Runnable onRetry;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private Runnable attempt;
    private DhtException lastFailure;

    /**
     * @param key           what the operation is about, for the failure's message
     * @param deadlineNanos the deadline, on the loop's clock ({@link NodeThread#nanoTime})
     * @param pauseMillis   between a failed attempt and the next
     * @param onRetry       called at each new attempt (a counter)
     */
    public Attempts(NodeThread loop, Object key, long deadlineNanos, long pauseMillis, Runnable onRetry) {
        this.loop = loop;
        this.key = key;
        this.deadlineNanos = deadlineNanos;
        this.pauseMillis = pauseMillis;
        this.onRetry = onRetry;
    }

    /** Makes the first attempt now; the stage fails with TIMEOUT at the deadline, CLOSED when the node is. */
    public CompletableFuture<T> run(Runnable attempt) {
        this.attempt = attempt;
        ScheduledFuture<?> timer = loop.schedule(() -> result.completeExceptionally(lastFailure != null
                ? new DhtException(Reason.TIMEOUT, "deadline passed; last failure: " + lastFailure.getMessage())
                : new DhtException(Reason.TIMEOUT, "no answer about " + key + " before the deadline")),
                Math.max(0, (deadlineNanos - loop.nanoTime()) / 1_000_000));
        if (timer == null) {
            result.completeExceptionally(new DhtException(Reason.CLOSED, "the node is closed"));
            return result;
        }
        result.whenComplete((value, failure) -> timer.cancel(false));
        attempt.run();
        return result;
    }

    public boolean isDone() {
        return result.isDone();
    }

    public void succeed(T value) {
        result.complete(value);
    }

    public void fail(Throwable why) {
        result.completeExceptionally(DhtException.from(why));
    }

    /** Tries again after the pause, or fails with {@code why} when the pause would pass the deadline. */
    public void retry(DhtException why) {
        lastFailure = why;
        if (loop.nanoTime() + pauseMillis * 1_000_000 >= deadlineNanos) {
            result.completeExceptionally(why);
            return;
        }
        onRetry.run();
        loop.schedule(attempt, pauseMillis);
    }

    /** What is left of the deadline, in milliseconds; at least 1. */
    public long leftMillis() {
        return Math.max(1, (deadlineNanos - loop.nanoTime()) / 1_000_000);
    }
}
