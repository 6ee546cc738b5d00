package org.p2psip.sipload;

/** What a registration does with a final response. */
sealed interface Reaction {
    /** Registered: the attempt completed. */
    record Completed() implements Reaction { }

    /** Answer the challenge next ({@link RegisterFlow#challengeAnswer}), in a new transaction of the same attempt. */
    record Answer() implements Reaction { }

    /** The attempt failed on this final status. */
    record Failed(int status) implements Reaction { }

    Reaction COMPLETED = new Completed();
    Reaction ANSWER = new Answer();
}
