package org.p2psip.sipload;

/** What a registration does with a final response. */
sealed interface Reaction {
    /** Registered: the attempt completed. */
    record Completed() implements Reaction { }

    /** Send this request next (the answer to a challenge), in a new transaction of the same attempt. */
    record Send(Outgoing request) implements Reaction { }

    /** The attempt failed on this final status. */
    record Failed(int status) implements Reaction { }

    Reaction COMPLETED = new Completed();
}
