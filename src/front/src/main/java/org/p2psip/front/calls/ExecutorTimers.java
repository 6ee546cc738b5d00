package org.p2psip.front.calls;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@link Timers} on a scheduled executor: the tasks run on the executor's threads. A cancelled
 * task is only marked so unless the executor removes cancelled tasks
 * ({@code ScheduledThreadPoolExecutor.setRemoveOnCancelPolicy}); a front with many transactions
 * open wants that, since most retransmission timers are cancelled long before they are due.
 */
public final class ExecutorTimers implements Timers {

    private final ScheduledExecutorService executor;

    public ExecutorTimers(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    @Override
    public long nowMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    @Override
    public Runnable after(long delayMillis, Runnable task) {
        ScheduledFuture<?> future = executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        return () -> future.cancel(false);
    }
}
