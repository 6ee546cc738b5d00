package org.p2psip.sipload;

import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * The registrations waiting out a 503's Retry-After before their REGISTER goes again, earliest
 * first. The load's loop wakes for the earliest as it does for its transactions' timers, so that a
 * phone's wait blocks no other phone. Touched by the load's one thread only.
 */
final class Resends {
    private record Due(long nanos, Attempt attempt) {
    }

    private final PriorityQueue<Due> queue = new PriorityQueue<>(Comparator.comparingLong(Due::nanos));

    /** {@code attempt}'s REGISTER goes again {@code seconds} after {@code now}. */
    void add(Attempt attempt, long now, int seconds) {
        queue.add(new Due(now + seconds * 1_000_000_000L, attempt));
    }

    /** When the earliest is due; Long.MAX_VALUE when none waits. */
    long nextNanos() {
        return queue.isEmpty() ? Long.MAX_VALUE : queue.peek().nanos();
    }

    /** The next attempt due by {@code now}, taken off the queue; null when none is. */
    Attempt poll(long now) {
        return !queue.isEmpty() && queue.peek().nanos() <= now ? queue.poll().attempt() : null;
    }
}
