package org.p2psip.dht.bryan;

import org.p2psip.dht.BindingSet;
import org.p2psip.dht.chord.Id;

/**
 * What a peer keeps for one resource, as responsible peer or replica: the binding set last
 * accepted, or a removal marker. {@code stamp} orders revisions across peers (the responsible
 * peer raises it on every accepted put or remove; a copy with a higher stamp wins): the set's
 * version cannot, as it restarts after a remove. Immutable.
 *
 * @param set          the stored set; null for a removal marker
 * @param removedUntil for a marker, when it may be forgotten (clock millis); else 0
 */
record StoredRecord(String aor, Id key, long stamp, BindingSet set, long removedUntil) {

    static StoredRecord of(BindingSet set, long stamp) {
        return new StoredRecord(set.aor(), Id.hash(set.aor()), stamp, set, 0);
    }

    static StoredRecord removed(String aor, long stamp, long until) {
        return new StoredRecord(aor, Id.hash(aor), stamp, null, until);
    }

    /** What a reader sees at {@code now}: absent when removed or past retention, else the live bindings. */
    BindingSet visibleAt(long now) {
        if (set == null || set.retainUntil() <= now) {
            return BindingSet.absent(aor);
        }
        return set.liveAt(now);
    }

    boolean forgettableAt(long now) {
        return set == null ? removedUntil <= now : set.retainUntil() <= now;
    }
}
