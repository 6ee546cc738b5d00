package org.p2psip.sipload;

/**
 * One registration in progress: a phone's exchange from its first REGISTER sent until the final
 * 200, a failure or a time-out. Touched by the load's one thread only.
 */
final class Attempt {

    /** Where the exchange stands. */
    enum Stage {
        /** A REGISTER without credentials is out; 401 is the expected answer (mode first). */
        AWAITING_CHALLENGE,
        /** A REGISTER that should end in 200 is out (plain, an answer to a challenge, a refresh). */
        AWAITING_OK
    }

    final Phone phone;
    final long startedNanos;   // the first REGISTER's first transmission: latency counts from here
    Stage stage = Stage.AWAITING_OK;
    boolean answeredStale;     // a 401 stale=true was answered once already: another is a failure
    boolean unchallenged;      // ended in 200 without the challenge the mode expected
    int retried503;            // REGISTERs sent again after a 503's Retry-After (--retry-503 bounds it)
    int retransmissions;

    Attempt(Phone phone, long startedNanos) {
        this.phone = phone;
        this.startedNanos = startedNanos;
    }
}
