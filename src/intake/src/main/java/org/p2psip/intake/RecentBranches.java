package org.p2psip.intake;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The branches of the requests the intake let through in the last one to two
 * {@link #GENERATION_NANOS}: a retransmission of one of them may come before the stack has made
 * its transaction (both copies queued, or taken by two message threads at once), and must then
 * go to the stack as well, never be refused: its request is being served, and the client would
 * get a 503 and then the 200 for one transaction. Two generations of sets, the older dropped
 * whole. Thread-safe.
 */
final class RecentBranches {

    static final long GENERATION_NANOS = 2_000_000_000L;

    private volatile Set<String> current = ConcurrentHashMap.newKeySet();
    private volatile Set<String> previous = ConcurrentHashMap.newKeySet();
    private volatile long currentSince;

    RecentBranches(long now) {
        currentSince = now;
    }

    void add(String branch, long now) {
        if (now - currentSince >= GENERATION_NANOS) {
            rotate(now);
        }
        current.add(branch);
    }

    boolean contains(String branch) {
        return current.contains(branch) || previous.contains(branch);
    }

    private synchronized void rotate(long now) {
        if (now - currentSince >= GENERATION_NANOS) {
            previous = current;
            current = ConcurrentHashMap.newKeySet();
            currentSince = now;
        }
    }
}
