package org.p2psip.dht;

/**
 * What the rules decided for a change where its AOR's record is stored ({@link OwnerRules}), and what
 * the record is after it ({@link Dht#update}).
 *
 * @param record  as the ownerRules answers it: the set to store when {@code written} (carrying the
 *                version it was computed from), else the record it was given. As an update
 *                completes with it: the record as stored after the change, the one written or,
 *                when nothing was written, the one found (live bindings only, {@link
 *                BindingSet#absent} when none)
 * @param written whether the change wrote {@code record}
 * @param answer  what the rules tell the change's maker besides the record, in their own encoding
 *                (the registrar's: its outcome, a refusal with its status), carried back unread by
 *                the backend so that the maker answers from it without applying the rules again;
 *                empty when they tell nothing
 * @param clears  whether the change removed every binding of the AOR, as {@code Contact: *} does,
 *                rather than some named ones: a backend whose copies of a record can diverge (a
 *                split ring) then also removes the bindings written elsewhere before it
 */
public record Updated(BindingSet record, boolean written, byte[] answer, boolean clears) {

    public Updated {
        answer = answer.clone();
    }

    /** An outcome that removes no binding it does not name. */
    public Updated(BindingSet record, boolean written, byte[] answer) {
        this(record, written, answer, false);
    }

    /** An outcome with nothing to tell besides the record. */
    public Updated(BindingSet record, boolean written) {
        this(record, written, new byte[0]);
    }

    @Override
    public byte[] answer() {
        return answer.clone();
    }

    /** The same decision about {@code stored}: the record as the store holds it once written, or as it found it. */
    public Updated about(BindingSet stored) {
        return new Updated(stored, written, answer, clears);
    }
}
