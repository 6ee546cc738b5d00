package org.p2psip.dht.bryan;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Puts a {@link StampHeader} on every request this peer signs: its clock, the epoch of this life
 * of the peer, and the next sequence. Every send stamps afresh, so a request the overlay sends
 * again (a join retried, the next stabilisation) is a new request to the receiver, not a replay.
 * Thread-safe.
 */
final class Stamper {

    private final Clock clock;
    private final long epoch;
    private final AtomicLong sequence = new AtomicLong();

    /**
     * A random epoch rather than the start time: two lives of one peer then never share one, even
     * if the clock was set back between them.
     */
    Stamper(Clock clock) {
        this(clock, new SecureRandom().nextLong());
    }

    Stamper(Clock clock, long epoch) {
        this.clock = clock;
        this.epoch = epoch;
    }

    /** The request with a DHT-Stamp appended; sign it afterwards, so that DHT-Auth covers the stamp. */
    PeerRequest stamp(PeerRequest unsigned) {
        return unsigned.with(new PeerHeader(StampHeader.NAME,
                new StampHeader(clock.millis(), epoch, sequence.incrementAndGet()).print()));
    }
}
