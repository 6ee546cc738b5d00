package org.p2psip.servlet;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.p2psip.metrics.RecentErrors;

/**
 * The node's counters by name: requests answered, refusals, failures. A problem is also logged
 * the first time its kind occurs, so that a flood of bad requests costs a counter increment, not
 * a log line each. Thread-safe.
 */
final class RequestCounters {

    private static final Logger LOG = System.getLogger(RequestCounters.class.getName());
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final RecentErrors recent;

    /** {@code recent}: where each problem goes too, for the status page. */
    RequestCounters(RecentErrors recent) {
        this.recent = recent;
    }

    void count(String name) {
        counts.computeIfAbsent(name, k -> new LongAdder()).increment();
    }

    /** Counts a problem of {@code kind}; logs {@code detail} if it is the first of its kind. */
    void problem(String kind, String detail) {
        LongAdder count = counts.computeIfAbsent(kind, k -> new LongAdder());
        count.increment();
        recent.add(kind, detail);
        if (count.sum() == 1) {
            LOG.log(Level.WARNING, "{0}: {1} (further ones are counted, not logged)", kind, detail);
        }
    }

    /** Every counter with its value, sorted by name, and the container's sessions made ({@link SessionCount}). */
    Map<String, Long> snapshot() {
        var copy = new TreeMap<String, Long>();
        counts.forEach((name, count) -> copy.put(name, count.sum()));
        copy.put("sessions-created", SessionCount.created());
        return copy;
    }
}
