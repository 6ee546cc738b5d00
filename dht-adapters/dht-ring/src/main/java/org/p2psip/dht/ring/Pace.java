package org.p2psip.dht.ring;

import java.time.Duration;

/**
 * How often a periodic maintenance task runs: at its base interval while things change, and
 * twice as long after each round that changed nothing, up to its idle interval. An overlay at rest
 * then costs a fraction of its upkeep (stabilisation and fingers were most of a Chord node's bytes:
 * about 4 KB/s per node at 500 ms), while one that moves is repaired at full speed. The ring
 * schedules each round as the last one ends ({@link #next}); Bamboo's maintenance, which asks on
 * each tick whether a round is due, keeps its due time over the same rule. Not thread-safe: used
 * on the node's loop only.
 */
public final class Pace {

    private final long baseNanos;
    private final long idleNanos;
    private long currentNanos;

    public Pace(Duration base, Duration idle) {
        this.baseNanos = Math.max(1, base.toNanos());
        this.idleNanos = Math.max(baseNanos, idle.toNanos());
        this.currentNanos = baseNanos;
    }

    /** The wait before the next round; the one after it will be twice as long (up to idle) unless {@link #changed}. */
    public Duration next() {
        long wait = currentNanos;
        currentNanos = Math.min(idleNanos, currentNanos * 2);
        return Duration.ofNanos(wait);
    }

    /** Something moved: the next rounds run at the base interval again. */
    public void changed() {
        currentNanos = baseNanos;
    }
}
