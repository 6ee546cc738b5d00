package org.p2psip.dht.bamboo;

import java.time.Duration;

/**
 * How often a periodic task of maintenance runs: at its base period while things change, and
 * twice as long after each round that changed nothing, up to its idle period; any change brings
 * it back to the base. An overlay at rest then pays a fraction of its upkeep, one that moves is
 * repaired at full speed. Chord's ring paces itself by the same rule ({@code dht-ring}'s Pace),
 * but schedules each round as the last one ends; Bamboo's maintenance asks on every tick of its
 * loop whether a round is due, and a change must pull a round that is far off back within one
 * base period, which a wait already scheduled cannot. Used on the node's loop only.
 */
final class Pace {

    private final long baseNanos;
    private final long idleNanos;
    private long waitNanos;
    private long dueAt;

    /** @param now when the pace starts: the first round is due one base period later */
    Pace(Duration base, Duration idle, long now) {
        this.baseNanos = Math.max(1, base.toNanos());
        this.idleNanos = Math.max(baseNanos, idle.toNanos());
        this.waitNanos = baseNanos;
        this.dueAt = now + baseNanos;
    }

    /** Whether a round is due at {@code now}; if so, the next one is set twice as far off (up to idle). */
    boolean due(long now) {
        if (now - dueAt < 0) {
            return false;
        }
        waitNanos = Math.min(idleNanos, waitNanos * 2);
        dueAt = now + waitNanos;
        return true;
    }

    /** Something moved: the next round comes within one base period, and rounds run at the base again. */
    void changed(long now) {
        waitNanos = baseNanos;
        if (dueAt - (now + baseNanos) > 0) {
            dueAt = now + baseNanos;
        }
    }

    /** How long after the latest round the next one is due (unless something changes): for tests. */
    Duration nextWait() {
        return Duration.ofNanos(waitNanos);
    }
}
