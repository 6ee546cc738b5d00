package org.p2psip.dht.ring;

import java.time.Duration;

/**
 * How often a periodic task of the ring runs: at its base interval while things change, and
 * twice as long after each round that changed nothing, up to its idle interval. A ring at rest
 * then costs a fraction of its upkeep (stabilisation and fingers were most of a node's bytes:
 * about 4 KB/s per node at 500 ms), while one that moves is repaired at full speed. Used on the
 * node's loop only.
 */
final class Pace {

    private final long baseMillis;
    private final long idleMillis;
    private long currentMillis;

    Pace(Duration base, Duration idle) {
        this.baseMillis = Math.max(1, base.toMillis());
        this.idleMillis = Math.max(baseMillis, idle.toMillis());
        this.currentMillis = baseMillis;
    }

    /** The wait before the next round; the one after it will be twice as long unless {@link #changed}. */
    long next() {
        long wait = currentMillis;
        currentMillis = Math.min(idleMillis, currentMillis * 2);
        return wait;
    }

    /** Something moved: the next rounds run at the base interval again. */
    void changed() {
        currentMillis = baseMillis;
    }
}
