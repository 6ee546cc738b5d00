package org.p2psip.dht;

/**
 * The registrar's rules as the node that stores an AOR runs them: from the record as stored and a
 * change (a REGISTER, encoded by whoever made it), the record to store next and the answer for
 * the change's maker. A backend whose owner applies changes ({@link Dht#update}) is given one when
 * it is built, and runs it where the record lives, so that a change costs one round trip whatever
 * the record holds (a refresh reads nothing first) and the rules run once per change: the maker
 * answers from what they decided. Must be a pure function of its arguments (every node runs the same one) and cheap: it runs
 * on the owner's storage thread or loop.
 */
@FunctionalInterface
public interface OwnerRules {

    /** For a backend built without rules: every change is refused as malformed. */
    OwnerRules NONE = (current, change, now) -> {
        throw new MalformedBindingException("this node applies no changes");
    };

    /**
     * What the rules decide: written, with the set to store in place of {@code current}, carrying
     * {@code current}'s version (as {@link BindingSet#next} makes it); or not written (refused, or
     * nothing to change), with {@code current}. Either way with the answer for the change's maker,
     * which the backend carries back to it ({@link Updated#answer}).
     *
     * @param current the AOR's live record as stored now ({@link BindingSet#absent} when none)
     * @param change  the change as its maker encoded it
     * @param now     the owner's clock, milliseconds since the epoch
     * @throws MalformedBindingException when {@code change} cannot be read; nothing is written
     */
    Updated apply(BindingSet current, byte[] change, long now);

    /**
     * {@link #apply}, as a store calls it: a set to store for another AOR or version than
     * {@code current}'s would overwrite a record it was not computed from, so it is refused with
     * IllegalStateException (a broken rule, never a client's doing).
     */
    default Updated next(BindingSet current, byte[] change, long now) {
        Updated decided = apply(current, change, now);
        BindingSet next = decided.record();
        if (decided.written() && (!next.aor().equals(current.aor()) || next.version() != current.version())) {
            throw new IllegalStateException("the ownerRules answered " + next.aor() + " version " + next.version()
                    + " for " + current.aor() + " version " + current.version());
        }
        return decided;
    }
}
