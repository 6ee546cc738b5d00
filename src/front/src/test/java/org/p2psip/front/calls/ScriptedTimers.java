package org.p2psip.front.calls;

import java.util.PriorityQueue;

/**
 * {@link Timers} on a virtual clock for tests: nothing runs until {@link #advance}, which runs the
 * tasks that fall due in time order (those scheduled at the same instant in the order they were
 * scheduled), including tasks scheduled by those tasks, with the clock set to each task's time.
 * {@link #ignoringCancels} makes cancellers do nothing, so that a test sees what a timer does
 * when it fires after its machine moved on (a cancel that lost the race with the firing).
 */
public final class ScriptedTimers implements Timers {

    private static final class Task {
        final long at;
        final long order;
        final Runnable run;
        boolean cancelled;

        Task(long at, long order, Runnable run) {
            this.at = at;
            this.order = order;
            this.run = run;
        }
    }

    private final PriorityQueue<Task> due = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
    private final boolean honourCancels;
    private long now;
    private long scheduled;

    public ScriptedTimers() {
        this(true);
    }

    private ScriptedTimers(boolean honourCancels) {
        this.honourCancels = honourCancels;
    }

    /** A clock whose cancellers do nothing: every timer fires, whatever its machine did meanwhile. */
    static ScriptedTimers ignoringCancels() {
        return new ScriptedTimers(false);
    }

    @Override
    public synchronized long nowMillis() {
        return now;
    }

    @Override
    public synchronized Runnable after(long delayMillis, Runnable task) {
        Task t = new Task(now + delayMillis, scheduled++, task);
        due.add(t);
        return () -> {
            synchronized (this) {
                if (honourCancels) {
                    t.cancelled = true;
                }
            }
        };
    }

    /** Moves the clock {@code millis} on, running every task due by then. */
    public void advance(long millis) {
        advanceTo(nowMillis() + millis);
    }

    /** Moves the clock to {@code millis}, running every task due by then. */
    void advanceTo(long millis) {
        while (true) {
            Task next;
            synchronized (this) {
                next = due.peek();
                if (next == null || next.at > millis) {
                    now = Math.max(now, millis);
                    return;
                }
                due.poll();
                now = next.at;
                if (next.cancelled) {
                    continue;
                }
            }
            next.run.run(); // outside the lock, as an executor's thread would run it
        }
    }

    /** Tasks scheduled and neither run nor cancelled. */
    synchronized int pending() {
        return (int) due.stream().filter(t -> !t.cancelled).count();
    }
}
