package org.p2psip.testkit;

import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Virtual time for a simulation: one event loop that every simulated node runs on, whose clock
 * moves only from one due task to the next. A run of many nodes then takes as long as its work,
 * not as long as the time it simulates, and a node is never taken for dead because the machine
 * was busy: a timeout is a timeout of simulated time. Scheduling is Netty's (the executor's
 * {@link #getCurrentTimeNanos} is the virtual time), so node code that schedules on its loop needs
 * no change; node code must read time from this executor or {@link #clock()}, not the machine's.
 *
 * <p>Not thread-safe: one thread drives it ({@link #runFor}), and every task runs on that thread.
 */
public final class SimulatedTime extends AbstractScheduledEventExecutor {

    private static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

    private final ArrayDeque<Runnable> ready = new ArrayDeque<>();
    private final Thread driver = Thread.currentThread();
    private long now;
    private boolean shutdown;

    /** Simulated nanoseconds since the start. */
    public long nanos() {
        return now;
    }

    @Override
    protected long getCurrentTimeNanos() {
        return now;
    }

    /** A clock that reads the simulated time (from 2026-01-01), for the nodes' records. */
    public Clock clock() {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                throw new UnsupportedOperationException("simulated time is UTC");
            }

            @Override
            public Instant instant() {
                return EPOCH.plusNanos(now);
            }
        };
    }

    /**
     * Runs every task due within {@code nanos} of simulated time, in time order (tasks due at the
     * same moment in the order they were given), and leaves the clock at the end of the span.
     */
    public void runFor(long nanos) {
        long until = now + nanos;
        while (true) {
            runReady();
            long next = nextScheduledTaskDeadlineNanos();
            if (next == -1 || next > until) {
                now = until;
                return;
            }
            now = Math.max(now, next);
            Runnable due = pollScheduledTask(now);
            if (due != null) {
                due.run();
            }
        }
    }

    private void runReady() {
        Runnable task;
        while ((task = ready.poll()) != null) {
            task.run();
        }
    }

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new java.util.concurrent.RejectedExecutionException("the simulation is over");
        }
        ready.add(task);
    }

    @Override
    public boolean inEventLoop(Thread thread) {
        return thread == driver;
    }

    @Override
    public boolean isShuttingDown() {
        return shutdown;
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        shutdown();
        return terminationFuture();
    }

    @Override
    public Future<?> terminationFuture() {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
    }

    @Override
    @Deprecated
    public void shutdown() {
        shutdown = true;
        cancelScheduledTasks();
        ready.clear();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }
}
