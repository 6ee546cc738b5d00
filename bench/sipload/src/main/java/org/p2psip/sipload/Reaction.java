package org.p2psip.sipload;

/** What a registration does with a final response. */
sealed interface Reaction {
    /** Registered: the attempt completed. */
    record Completed() implements Reaction { }

    /** Answer the challenge next ({@link RegisterFlow#challengeAnswer}), in a new transaction of the same attempt. */
    record Answer() implements Reaction { }

    /**
     * Send the attempt's REGISTER again after {@code seconds} ({@link RegisterFlow#retry}), in a new
     * transaction: a 503 said when to come back (Retry-After).
     */
    record Retry(int seconds) implements Reaction { }

    /** The attempt failed on this final status. */
    record Failed(int status) implements Reaction { }

    Reaction COMPLETED = new Completed();
    Reaction ANSWER = new Answer();
}
