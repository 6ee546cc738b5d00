package org.p2psip.dht.ring.store;

import java.util.List;
import java.util.Objects;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;

/**
 * What a node stores for one AOR, as owner or replica: the binding set as last accepted, or a
 * removal marker. The stamp orders revisions of the AOR along one owner's line of writes: the
 * owner raises it by one on every accepted put or remove. (The BindingSet version cannot order
 * them: it restarts at 1 after a remove.) The contact writes order each contact across owners:
 * two copies written by different owners (a split ring's two sides) merge contact by contact
 * ({@link RecordMerge}). Immutable. Each backend carries records in {@link RecordCodec}'s encoding.
 *
 * @param aor          the address-of-record
 * @param key          SHA-1 of the AOR
 * @param stamp        revision counter, never reset
 * @param set          the stored set; null for a removal marker
 * @param removedUntil for a marker, when it may be forgotten (clock millis); else 0
 * @param writtenAt    the owner's clock at the record's last write; 0 when unknown (a record made
 *                     without its writes, merged whole by stamp)
 * @param writes       the last write of each contact present, and the removals still kept
 */
public record Record(String aor, Id key, long stamp, BindingSet set, long removedUntil, long writtenAt,
                     List<ContactWrite> writes) {

    public Record {
        Objects.requireNonNull(aor, "aor");
        writes = List.copyOf(writes);
    }

    /** A set with no contact writes: merged whole, by stamp. */
    public static Record of(BindingSet set, long stamp) {
        return new Record(set.aor(), Id.hash(set.aor()), stamp, set, 0, 0, List.of());
    }

    /** A removal marker with no contact writes: merged whole, by stamp. */
    public static Record removed(String aor, long stamp, long until) {
        return new Record(aor, Id.hash(aor), stamp, null, until, 0, List.of());
    }

    public boolean isRemoved() {
        return set == null;
    }

    /** The binding of {@code contact} in the stored set, or null. */
    public Binding binding(String contact) {
        if (set != null) {
            for (Binding b : set.bindings()) {
                if (b.contact().equals(contact)) {
                    return b;
                }
            }
        }
        return null;
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
