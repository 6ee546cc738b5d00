package org.p2psip.dht.ring.store;

import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;

/**
 * What a node stores for one AOR, as owner or replica: the binding set as last accepted, or a
 * removal marker. The stamp orders revisions of the AOR across nodes: the owner raises it by one
 * on every accepted put or remove, and a node receiving a copy keeps the higher stamp. (The
 * BindingSet version cannot order them: it restarts at 1 after a remove.) Immutable. Each backend
 * carries records in its own encoding (Chord in its frames, Bryan in SIP bodies).
 *
 * @param aor          the address-of-record
 * @param key          SHA-1 of the AOR
 * @param stamp        revision counter, never reset
 * @param set          the stored set; null for a removal marker
 * @param removedUntil for a marker, when it may be forgotten (clock millis); else 0
 */
public record Record(String aor, Id key, long stamp, BindingSet set, long removedUntil) {

    public static Record of(BindingSet set, long stamp) {
        return new Record(set.aor(), Id.hash(set.aor()), stamp, set, 0);
    }

    public static Record removed(String aor, long stamp, long until) {
        return new Record(aor, Id.hash(aor), stamp, null, until);
    }

    public boolean isRemoved() {
        return set == null;
    }

    /** The set a reader sees at {@code now}: absent when removed or past retention, else the live bindings. */
    public BindingSet visibleAt(long now) {
        if (set == null || set.retainUntil() <= now) {
            return BindingSet.absent(aor);
        }
        return set.liveAt(now);
    }

    /** Whether the sweep may forget it at {@code now}. */
    public boolean forgettableAt(long now) {
        return set == null ? removedUntil <= now : set.retainUntil() <= now;
    }
}
