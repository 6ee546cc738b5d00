package org.p2psip.dht.bryan;

import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.p2psip.dht.Counters;

/**
 * Refuses a peer request that is not fresh or that was accepted before, by its DHT-Stamp: its
 * sent-at must lie within the replay window of this peer's clock, and its sequence must be new
 * to the {@link SequenceWindow} of its sender's life (sender, epoch). Call it last, once every
 * other check passed, so that what it accepts is served. Refusals are 403 (as a bad DHT-Auth:
 * the sender cannot mend the request, only send a new one), counted, and each kind logged once.
 * Not thread-safe: runs on the peer's loop.
 */
final class ReplayGuard {

    static final String REPLAYED = "bryan.replays.refused";
    static final String STALE = "bryan.stale.refused";
    private static final Logger LOG = System.getLogger(ReplayGuard.class.getName());

    private final Clock clock;
    private final long windowMillis;
    private final Counters counters;
    private final Map<Life, Heard> heard = new HashMap<>();
    private long lastForgotten;

    private record Life(String sender, long epoch) {
    }

    /** What one life of a sender had accepted: its sequences and the newest sent-at among them. */
    private static final class Heard {
        final SequenceWindow sequences;
        long newestSentAt;

        Heard(StampHeader first) {
            sequences = new SequenceWindow(first.sequence());
            newestSentAt = first.sentAt();
        }
    }

    ReplayGuard(Clock clock, Duration window, Counters counters) {
        this.clock = clock;
        this.windowMillis = window.toMillis();
        this.counters = counters;
        this.lastForgotten = clock.millis();
    }

    /** Accepts the request stamped {@code stamp} by {@code sender} (host:port), or refuses it. */
    void admit(String sender, StampHeader stamp) throws Refusal {
        long now = clock.millis();
        forgetSilent(now);
        long skew = stamp.sentAt() - now;
        if (Math.abs(skew) > windowMillis) {
            throw refuse(STALE, "Stale Request: sent " + skew + " ms from this peer's clock, outside the replay window",
                    sender, stamp, " (are the nodes' clocks synchronised?)");
        }
        Heard life = heard.get(new Life(sender, stamp.epoch()));
        if (life == null) {
            heard.put(new Life(sender, stamp.epoch()), new Heard(stamp)); // a new peer, or a new life of one
            return;
        }
        switch (life.sequences.accept(stamp.sequence())) {
            case NEW -> life.newestSentAt = Math.max(life.newestSentAt, stamp.sentAt());
            case SEEN -> throw refuse(REPLAYED, "Replayed Request: this sequence was accepted before", sender, stamp, "");
            case TOO_OLD -> throw refuse(STALE, "Stale Request: sequence more than " + SequenceWindow.REACH
                    + " below the newest accepted", sender, stamp, " (newest " + life.sequences.highest() + ")");
        }
    }

    /** Lives remembered; for tests. */
    int size() {
        return heard.size();
    }

    /**
     * Forgets each life whose every accepted request is now outside the window: a replay of any of
     * them is refused as stale, so the sequences no longer matter. At most once per window, so the
     * map holds the lives heard within about two windows.
     */
    private void forgetSilent(long now) {
        if (now - lastForgotten < windowMillis) {
            return;
        }
        lastForgotten = now;
        heard.values().removeIf(life -> life.newestSentAt < now - windowMillis);
    }

    private Refusal refuse(String kind, String reason, String sender, StampHeader stamp, String detail) {
        counters.increment(kind);
        if (counters.get(kind) == 1) {
            LOG.log(Level.WARNING, "{0} from {1}, DHT-Stamp {2}{3}; further ones are counted in {4}, not logged",
                    reason, sender, stamp.print(), detail, kind);
        }
        return new Refusal(403, reason);
    }
}
