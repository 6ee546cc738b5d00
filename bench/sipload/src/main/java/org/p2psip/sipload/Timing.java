package org.p2psip.sipload;

/**
 * The client transaction's timers: T1 (first retransmission; RFC 3261's 500 ms), T2 (the longest
 * interval between retransmissions, 4 s) and the time-out after which a transaction without a
 * final answer fails (Timer F, 64 x T1 = 32 s by default; shorter to end a bench step sooner).
 * Over a reliable transport there are no retransmissions (RFC 3261 §17.1.1.2), only the time-out.
 */
record Timing(long t1Nanos, long t2Nanos, long timeoutNanos, boolean retransmits) {
    static final long T2_MILLIS = 4000;

    static Timing of(long t1Millis, long timeoutMillis) {
        return new Timing(t1Millis * 1_000_000L, Math.max(T2_MILLIS, t1Millis) * 1_000_000L,
                timeoutMillis * 1_000_000L, true);
    }

    /** The same time-out, and no Timer E: for a reliable transport. */
    Timing reliable() {
        return new Timing(t1Nanos, t2Nanos, timeoutNanos, false);
    }

    /** RFC 3261's Timer F for this T1. */
    static long timerFMillis(long t1Millis) {
        return 64 * t1Millis;
    }
}
