package org.p2psip.dht.bamboo;

import java.time.Duration;
import org.p2psip.dht.ring.Pace;

/**
 * When the next round of a periodic maintenance task is due, paced by {@code dht-ring}'s
 * {@link Pace}: at the base period while the table changes, twice as long after each round that
 * changed nothing, up to the idle period. Chord's ring schedules each round as the last one ends;
 * Bamboo's maintenance asks on every tick of its loop whether a round is due, so that a change can
 * pull a round that is far off back within one base period, which a wait already scheduled cannot.
 * Used on the node's loop only.
 */
final class Rounds {

    private final Pace pace;
    private long waitNanos;
    private long dueAt;

    /** @param now when the rounds start: the first is due one base period later */
    Rounds(Duration base, Duration idle, long now) {
        this.pace = new Pace(base, idle);
        this.waitNanos = pace.next().toNanos();
        this.dueAt = now + waitNanos;
    }

    /** Whether a round is due at {@code now}; if so, the next one is set twice as far off (up to idle). */
    boolean due(long now) {
        if (now - dueAt < 0) {
            return false;
        }
        waitNanos = pace.next().toNanos();
        dueAt = now + waitNanos;
        return true;
    }

    /** Something moved: the next round comes within one base period, and rounds run at the base again. */
    void changed(long now) {
        pace.changed();
        waitNanos = pace.next().toNanos(); // the base period: the round after the next waits twice as long
        if (dueAt - (now + waitNanos) > 0) {
            dueAt = now + waitNanos;
        }
    }

    /** How long after the latest round the next one is due (unless something changes): for tests. */
    Duration nextWait() {
        return Duration.ofNanos(waitNanos);
    }
}
