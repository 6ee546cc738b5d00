package org.p2psip.intake;

/** Why the intake refuses a new request: each a 503 reason phrase and a counter of its own; or NONE. */
enum Refusal {
    /** Not refused: let through to the stack (what the intake remembers of requests it passed). */
    NONE("", ""),
    /** The queue has been later than the target for a whole interval, and this request waited longer. */
    LATE("Overloaded", "refused-late"),
    /** Among the share refused while requests stay in the node longer than the target. */
    SLOW("Overloaded", "refused-slow"),
    /** The JVM spent more than its share of the last second collecting. */
    COLLECTING("Overloaded", "refused-collecting"),
    /** The application has not opened the intake yet: joining, warming up. */
    NOT_READY("Not Ready", "refused-not-ready"),
    /** The application is stopping. */
    STOPPING("Stopping", "refused-stopping");

    final String reason;
    final String counter;

    Refusal(String reason, String counter) {
        this.reason = reason;
        this.counter = counter;
    }

    /** Whether the node is open but overloaded (and so still answers its health probes). */
    boolean overload() {
        return this == LATE || this == SLOW || this == COLLECTING;
    }
}
