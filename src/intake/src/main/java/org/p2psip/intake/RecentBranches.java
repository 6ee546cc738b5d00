package org.p2psip.intake;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the intake did with the requests of the last one to two {@link #GENERATION_NANOS}, by
 * branch: a retransmission of one of them may come before the first copy's answer reached the
 * client (both copies queued, or taken by two message threads at once), and must meet the same
 * fate. One let through goes to the stack again (which absorbs it or answers it as it answered
 * the first), one refused is refused again with the same answer: a client never gets a 503 and
 * then a 200 for one transaction. Two generations of maps, the older dropped whole. Thread-safe.
 *
 * @param <V> what is remembered of each request
 */
final class RecentBranches<V> {

    static final long GENERATION_NANOS = 2_000_000_000L;

    private volatile Map<String, V> current = new ConcurrentHashMap<>();
    private volatile Map<String, V> previous = new ConcurrentHashMap<>();
    private volatile long currentSince;

    RecentBranches(long now) {
        currentSince = now;
    }

    void put(String branch, V what, long now) {
        if (now - currentSince >= GENERATION_NANOS) {
            rotate(now);
        }
        current.put(branch, what);
    }

    /** What was noted of this branch lately, or null. */
    V get(String branch) {
        V what = current.get(branch);
        return what != null ? what : previous.get(branch);
    }

    private synchronized void rotate(long now) {
        if (now - currentSince >= GENERATION_NANOS) {
            previous = current;
            current = new ConcurrentHashMap<>();
            currentSince = now;
        }
    }
}
