package org.p2psip.intake;

/**
 * Decides from how long datagrams waited for a message thread whether the node is overloaded,
 * after CoDel's idea (Nichols and Jacobson): a queue is bad when its delay stays above a target
 * for a whole interval, not when it holds many messages. A collector pause delays the few
 * datagrams queued before it, and the next one taken is young again: no shedding. An offered load
 * above capacity keeps every datagram late: after one interval of that, new requests that waited
 * longer than the target are refused, which drains the queue fast (a refusal costs a fraction of
 * a request), so the requests served wait about the target and no message thread idles. Shedding
 * ends once a datagram waited less than half the target: the queue has drained.
 *
 * <p>Thread-safe: every message thread reports what it takes.
 */
final class QueueDelay {

    private static final long NEVER = Long.MIN_VALUE;

    private final long targetNanos;
    private final long intervalNanos;
    private long aboveSince = NEVER;
    private boolean shedding;

    /** @param targetNanos the longest wait a served request may have had; also the interval of judgement */
    QueueDelay(long targetNanos) {
        this.targetNanos = targetNanos;
        this.intervalNanos = targetNanos;
    }

    /**
     * Notes that a datagram taken at {@code now} waited {@code waitedNanos}; true when it is a
     * new request too late to serve, to be refused.
     */
    synchronized boolean late(long waitedNanos, long now) {
        if (waitedNanos <= targetNanos) {
            aboveSince = NEVER;
            if (waitedNanos < targetNanos / 2) {
                shedding = false;
            }
            return false;
        }
        if (!shedding) {
            if (aboveSince == NEVER) {
                aboveSince = now;
            }
            shedding = now - aboveSince >= intervalNanos;
        }
        return shedding;
    }

    synchronized boolean shedding() {
        return shedding;
    }
}
