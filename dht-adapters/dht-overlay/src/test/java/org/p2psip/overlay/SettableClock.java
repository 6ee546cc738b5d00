package org.p2psip.overlay;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A wall clock a test sets and moves by hand, so time-based rules are tested without waiting. */
final class SettableClock extends Clock {

    private volatile long millis;

    SettableClock(long millis) {
        this.millis = millis;
    }

    /** Starts at the real time: peers on the system clock are within any window of it. */
    static SettableClock now() {
        return new SettableClock(System.currentTimeMillis());
    }

    void advance(Duration by) {
        millis += by.toMillis();
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a test clock stays in UTC");
    }
}
