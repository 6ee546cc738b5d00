package org.p2psip.front.calls;

/**
 * A clock and a way to run a task later: the transaction machines' only source of time, so that
 * tests drive them on a virtual clock. Implementations are thread-safe, and {@link #after} never
 * runs the task on the calling thread: a machine schedules while it holds its lock.
 */
interface Timers {

    /** Milliseconds on a monotonic clock (only differences mean anything). */
    long nowMillis();

    /**
     * Runs {@code task} once, {@code delayMillis} from now. Returns a canceller: running it stops
     * the task if it has not started yet (running it later does nothing).
     */
    Runnable after(long delayMillis, Runnable task);
}
