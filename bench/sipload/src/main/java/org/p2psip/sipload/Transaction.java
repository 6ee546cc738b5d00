package org.p2psip.sipload;

/**
 * A non-INVITE client transaction (RFC 3261 §17.1.2): the request's bytes, Timer E over UDP
 * (retransmit at T1, doubling up to T2; at T2 once a provisional answer came) and Timer F (give up).
 * Touched by the load's one thread only.
 */
final class Transaction {
    final String branch;
    final byte[] bytes;
    final Attempt attempt;
    final long deadlineNanos;      // Timer F
    long intervalNanos;            // Timer E's current value
    long nextRetransmitNanos;
    boolean provisional;           // a 1xx came: retransmit every T2 (Proceeding state)
    boolean done;

    Transaction(String branch, byte[] bytes, Attempt attempt, long sentNanos, Timing timing) {
        this.branch = branch;
        this.bytes = bytes;
        this.attempt = attempt;
        this.deadlineNanos = sentNanos + timing.timeoutNanos();
        this.intervalNanos = timing.t1Nanos();
        this.nextRetransmitNanos = timing.retransmits() ? sentNanos + intervalNanos : Long.MAX_VALUE;
    }

    /** When this transaction next needs the load's attention: a retransmission or its time-out. */
    long dueNanos() {
        return Math.min(nextRetransmitNanos, deadlineNanos);
    }

    /** After a retransmission at {@code now}: Timer E doubles, up to T2 (T2 at once in Proceeding). */
    void retransmitted(long now, Timing timing) {
        intervalNanos = provisional ? timing.t2Nanos() : Math.min(2 * intervalNanos, timing.t2Nanos());
        nextRetransmitNanos = now + intervalNanos;
    }

    /** A provisional answer at {@code now}: the server has it, retransmit only every T2 from now. */
    void proceeding(long now, Timing timing) {
        provisional = true;
        if (timing.retransmits()) {
            intervalNanos = timing.t2Nanos();
            nextRetransmitNanos = now + intervalNanos;
        }
    }
}
