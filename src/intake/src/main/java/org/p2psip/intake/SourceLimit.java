package org.p2psip.intake;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * New requests per second from each source address, as Kamailio's pike counts them: a source
 * past {@code perSecond} in the current one-second window is over its limit for the rest of it,
 * and the other sources are served as if it were not there. Windows older than the last are forgotten once a
 * second; past {@link #MAX_SOURCES} sources (a flood from spoofed addresses) a new source is not
 * counted, so that the table cannot grow without bound. Thread-safe.
 */
final class SourceLimit {

    static final int MAX_SOURCES = 100_000;
    private static final long SECOND = 1_000_000_000L;

    /** One source's window: which second it counts (nanos / SECOND) and how many it counted. */
    private static final class Window {
        volatile long second;
        final AtomicLong count = new AtomicLong();
    }

    private final int perSecond;
    private final ConcurrentHashMap<InetAddress, Window> windows = new ConcurrentHashMap<>();
    private final AtomicLong swept = new AtomicLong();

    /** {@code perSecond} 0: no limit. */
    SourceLimit(int perSecond) {
        this.perSecond = perSecond;
    }

    /** Counts a new request from {@code source} at {@code nanos}; true when it is past the source's limit. */
    boolean over(InetAddress source, long nanos) {
        if (perSecond <= 0) {
            return false;
        }
        long second = nanos / SECOND;
        sweep(second);
        Window window = windows.get(source);
        if (window == null) {
            if (windows.size() >= MAX_SOURCES) {
                return false;
            }
            window = windows.computeIfAbsent(source, s -> new Window());
        }
        if (window.second != second) {
            synchronized (window) {
                if (window.second != second) {
                    window.second = second;
                    window.count.set(0);
                }
            }
        }
        return window.count.incrementAndGet() > perSecond;
    }

    /** How many sources are being counted. */
    int sources() {
        return windows.size();
    }

    private void sweep(long second) {
        long last = swept.get();
        if (second > last && swept.compareAndSet(last, second)) {
            windows.values().removeIf(w -> w.second < second - 1);
        }
    }
}
