package org.p2psip.intake;

import org.p2psip.lazysip.Defect;

/**
 * Why the intake refuses a request: each a status (503, but for a request that is not valid SIP),
 * a reason phrase and a counter of its own; or NONE (passed to the stack) or LOOKUP (answered from
 * the application's directory).
 */
enum Refusal {
    /** Not refused: let through to the stack (what the intake remembers of requests it passed). */
    NONE(0, "", ""),
    /**
     * Not refused: an INVITE asking for a redirect, answered by the intake from the application's
     * {@link Directory}; its retransmissions and its ACK end in the intake.
     */
    LOOKUP(0, "", ""),
    /** The queue has been later than the target for a whole interval, and this request waited longer. */
    LATE(503, "Overloaded", "refused-late"),
    /** Among the share refused while requests stay in the node longer than the target. */
    SLOW(503, "Overloaded", "refused-slow"),
    /** The JVM spent more than its share of the last second collecting. */
    COLLECTING(503, "Overloaded", "refused-collecting"),
    /** Admitting it could run the heap out before the transactions taken so far are freed ({@link HeapGuard}). */
    HEAP(503, "Overloaded", "refused-heap"),
    /** The queue holds more bytes than its bound: the reader refused it instead of queueing it. */
    QUEUE_FULL(503, "Overloaded", "refused-queue-full"),
    /** The request's source address sent more new requests this second than its limit allows. */
    SOURCE(503, "Source Over Limit", "refused-source"),
    /** The application has not opened the intake yet: joining, warming up. */
    NOT_READY(503, "Not Ready", "refused-not-ready"),
    /** The application is stopping. */
    STOPPING(503, "Stopping", "refused-stopping"),
    /**
     * The request line names a SIP version other than 2.0. The stack's parser reads any version
     * as SIP/2.0, so the application cannot tell; only the datagram shows it.
     */
    VERSION(505, "Version Not Supported", "refused-version"),
    /** The Request-URI's scheme is neither sip nor sips. */
    SCHEME(416, "Unsupported URI Scheme", "refused-scheme"),
    /** Any other way of not being valid SIP; the reason phrase is the {@link Defect}'s. */
    MALFORMED(400, "Bad Request", "refused-malformed");

    final int status;
    final String reason;
    final String counter;

    Refusal(int status, String reason, String counter) {
        this.status = status;
        this.reason = reason;
        this.counter = counter;
    }

    /** The refusal of a request with this defect. */
    static Refusal of(Defect defect) {
        return switch (defect.status) {
            case 505 -> VERSION;
            case 416 -> SCHEME;
            default -> MALFORMED;
        };
    }

    /** Whether the request was not valid SIP: refused for what it is, not for when it came. */
    boolean malformed() {
        return this == VERSION || this == SCHEME || this == MALFORMED;
    }

    /** Whether the node is open but overloaded, or the source over its limit (and so health probes still pass). */
    boolean overload() {
        return this == LATE || this == SLOW || this == COLLECTING || this == HEAP || this == QUEUE_FULL || this == SOURCE;
    }
}
