package org.p2psip.overlay;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.p2psip.dht.Counters;

/**
 * Which authenticated frames a node still accepts: one whose sender wrote it within the replay
 * window of this node's clock, and whose sequence is above every one seen before on its channel,
 * on whichever connection. A captured frame sent again is either too old or not newer than what
 * its channel already carried, so it is refused; the MAC keeps anyone without the secret from
 * writing it a new stamp.
 *
 * <p>It remembers each channel's highest sequence until the channel has been silent for longer
 * than the window. Forgetting then lets nothing through: every frame of that channel was sent,
 * by its own stamp, more than a window ago, so the clock check refuses it. Memory is therefore
 * bounded by the channels active in about the last window. One per transport; used on its event
 * loop only, so it takes no locks.
 */
final class Replays {

    /** Why a frame is accepted or not. */
    enum Verdict {
        FRESH, OUTSIDE_WINDOW, NOT_NEWER;

        boolean accepted() {
            return this == FRESH;
        }
    }

    private final Map<Long, Seen> channels = new HashMap<>();
    private final long windowMillis;
    private final long sweepEveryMillis;
    private final Clock clock;
    private final Counters counters;
    private long lastSweep;

    Replays(Duration window, Clock clock, Counters counters) {
        this.windowMillis = window.toMillis();
        // a quarter window between sweeps: a channel outlives its window by at most that much
        this.sweepEveryMillis = Math.max(1, windowMillis / 4);
        this.clock = clock;
        this.counters = counters;
        this.lastSweep = clock.millis();
    }

    /** Judges a frame's stamp; a frame it accepts moves its channel on, one it refuses is counted. */
    Verdict admit(Stamp stamp) {
        long now = clock.millis();
        sweep(now);
        Verdict verdict = judge(stamp, now);
        if (!verdict.accepted()) {
            counters.increment(AbstractTransport.REPLAYS_REFUSED);
        }
        return verdict;
    }

    /** How many channels it remembers now. */
    int remembered() {
        return channels.size();
    }

    private Verdict judge(Stamp stamp, long now) {
        if (stamp.sentAt() < now - windowMillis || stamp.sentAt() > now + windowMillis) {
            return Verdict.OUTSIDE_WINDOW;
        }
        Seen seen = channels.get(stamp.channel());
        if (seen == null) {
            channels.put(stamp.channel(), new Seen(stamp.sequence(), Math.max(now, stamp.sentAt())));
            return Verdict.FRESH;
        }
        if (stamp.sequence() <= seen.sequence) {
            return Verdict.NOT_NEWER;
        }
        seen.sequence = stamp.sequence();
        seen.lastSeen = Math.max(seen.lastSeen, Math.max(now, stamp.sentAt()));
        return Verdict.FRESH;
    }

    /** Forgets channels silent for longer than the window; at most once a quarter window, or when the clock went back. */
    private void sweep(long now) {
        if (now >= lastSweep && now - lastSweep < sweepEveryMillis) {
            return;
        }
        lastSweep = now;
        channels.values().removeIf(seen -> now - seen.lastSeen > windowMillis);
    }

    /**
     * A channel's highest sequence, and when it was last seen: the later of when its newest frame
     * arrived and when that frame says it was sent, since a sender whose clock runs ahead has its
     * frames accepted for up to a window past their arrival.
     */
    private static final class Seen {
        long sequence;
        long lastSeen;

        Seen(long sequence, long lastSeen) {
            this.sequence = sequence;
            this.lastSeen = lastSeen;
        }
    }
}
