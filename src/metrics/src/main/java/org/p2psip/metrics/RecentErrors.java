package org.p2psip.metrics;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * The last errors a process met, newest first, for the status page: kind, detail and time, and
 * how often the kind came in all. A flood of one kind keeps one entry (its last detail), so that
 * it cannot push every other kind out. Thread-safe.
 */
public final class RecentErrors {

    private final int capacity;
    private final LongSupplier clock;
    private final Deque<Entry> entries = new ArrayDeque<>();

    public RecentErrors(int capacity, LongSupplier clock) {
        this.capacity = capacity;
        this.clock = clock;
    }

    public synchronized void add(String kind, String detail) {
        long count = 1;
        for (var it = entries.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.kind.equals(kind)) {
                count += e.count;
                it.remove();
                break;
            }
        }
        entries.addFirst(new Entry(kind, detail.length() > 300 ? detail.substring(0, 300) + "..." : detail,
                clock.getAsLong(), count));
        if (entries.size() > capacity) {
            entries.removeLast();
        }
    }

    /** [{"kind":..,"detail":..,"at":ms,"count":n},...], newest first. */
    public synchronized String json() {
        var out = new StringBuilder("[");
        for (Entry e : entries) {
            out.append(out.length() > 1 ? "," : "")
               .append("{\"kind\":").append(Json.string(e.kind))
               .append(",\"detail\":").append(Json.string(e.detail))
               .append(",\"at\":").append(e.at)
               .append(",\"count\":").append(e.count).append('}');
        }
        return out.append(']').toString();
    }

    private record Entry(String kind, String detail, long at, long count) {
    }
}
