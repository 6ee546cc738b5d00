package org.p2psip.dht.ring.store;

import org.p2psip.dht.BindingSet;

/**
 * What became of a put or a remove at the node that owns the key. Immutable.
 *
 * @param outcome what happened
 * @param current for a conflict or an unchanged update, the set as a get reads it (so that the
 *                writer can apply its change again at once); else null
 * @param record  for a stored write, the record as stored; else null
 * @param carried whether the asker is a replica whose copy travels in the answer instead of a copy
 *                message of its own (the backend puts {@code record} in the answer)
 * @param answer  for an update stored or unchanged, the rules' answer for the change's maker
 *                ({@link org.p2psip.dht.Updated#answer}); else empty
 */
public record Write(Outcome outcome, BindingSet current, Record record, boolean carried, byte[] answer) {

    public Write(Outcome outcome, BindingSet current, Record record, boolean carried) {
        this(outcome, current, record, carried, new byte[0]);
    }

    public enum Outcome {
        /** Stored here and taken by every replica: acknowledge it. */
        STORED,
        /** Stored here, but a replica did not take its copy in time: do not acknowledge it. */
        UNREPLICATED,
        /** The version did not match the stored one: nothing was written. */
        CONFLICT,
        /** An update whose rules wrote nothing (refused, or nothing to change): nothing was written. */
        UNCHANGED,
        /** An update this node could not read: nothing was written. */
        MALFORMED,
        /** This node does not own the key (yet, or any more): ask again after the ring repaired. */
        NOT_OWNER
    }

    static Write conflict(BindingSet current) {
        return new Write(Outcome.CONFLICT, current, null, false);
    }

    static Write unchanged(BindingSet current, byte[] answer) {
        return new Write(Outcome.UNCHANGED, current, null, false, answer);
    }

    /** This write, carrying the rules' answer for the change's maker. */
    Write answering(byte[] answer) {
        return new Write(outcome, current, record, carried, answer);
    }

    static Write malformed() {
        return new Write(Outcome.MALFORMED, null, null, false);
    }

    static Write notOwner() {
        return new Write(Outcome.NOT_OWNER, null, null, false);
    }
}
