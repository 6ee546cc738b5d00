package org.p2psip.dht.ring.store;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;

/**
 * A record's contact writes: stamped by the owner's writes ({@link #written}) and used to merge two
 * copies of one record ({@link #merge}). While a ring is split each side has an owner for an AOR
 * and acknowledges writes there; the copies that meet at the heal are merged contact by contact,
 * the later write of each contact deciding (a removal on a tie), as a set whose elements carry
 * their own time merges in Dynamo's shopping cart, so that neither side's acknowledged bindings are
 * dropped with the other side's older set. Copies that carry no writes are merged whole, the
 * higher stamp winning. Stateless.
 *
 * <p>Write times are the owner's clock, raised past the record's last write where that clock is
 * behind: on one owner's line of writes a later write is always the later time, whatever the
 * clocks. Between two owners of a split ring, the contact whose writes are compared across clocks
 * that disagree by more than the writes are apart may go either way.
 */
public final class RecordMerge {

    private RecordMerge() {
    }

    /**
     * The record an owner stores when it writes {@code next} (null: the AOR removed) over
     * {@code held} (null when none): each contact new or changed written now, each live binding
     * dropped kept as removed until it would have expired, or at least {@code keepRemovedMillis}.
     * A write that {@code clears} the AOR (and a removal of it) is also kept as a removal of every
     * contact written before it ({@link ContactWrite#EVERY}), for {@code keepRemovedMillis}.
     */
    public static Record written(Record held, BindingSet next, boolean clears, String aor, long stamp, long now,
                          long keepRemovedMillis) {
        long at = held == null ? now : Math.max(now, held.writtenAt() + 1);
        Map<String, ContactWrite> before = held == null ? Map.of() : byContact(held.writes());
        var writes = new ArrayList<ContactWrite>();
        Set<String> kept = new HashSet<>();
        if (next != null) {
            for (Binding b : next.bindings()) {
                ContactWrite last = before.get(b.contact());
                boolean same = last != null && !last.removed() && b.equals(held.binding(b.contact()));
                writes.add(same ? last : new ContactWrite(b.contact(), at, 0));
                kept.add(b.contact());
            }
        }
        if (held != null && held.set() != null) {
            for (Binding b : held.set().bindings()) {
                if (b.isLiveAt(now) && kept.add(b.contact())) {
                    writes.add(new ContactWrite(b.contact(), at, Math.max(b.expiresAt(), now + keepRemovedMillis)));
                }
            }
        }
        if (clears || next == null) {
            writes.add(new ContactWrite(ContactWrite.EVERY, at, now + keepRemovedMillis));
            kept.add(ContactWrite.EVERY);
        }
        for (ContactWrite w : before.values()) {
            if (w.removed() && w.removedUntil() > now && kept.add(w.contact())) {
                writes.add(w);
            }
        }
        return new Record(aor, Id.hash(aor), stamp, next, next == null ? now + keepRemovedMillis : 0, at, writes);
    }

    /**
     * What a node keeps when it holds {@code held} and receives {@code copy} of the same AOR:
     * {@code held} itself when the copy adds nothing, {@code copy} when it holds everything
     * {@code held} does, else a record of both, its stamp and version past either's (so that a
     * compare-and-set against either fails and a replica takes it).
     */
    public static Record merge(Record held, Record copy, long now) {
        if (held.writtenAt() == 0 || copy.writtenAt() == 0) {
            return copy.stamp() > held.stamp() ? copy : held;
        }
        Map<String, Pick> picks = new LinkedHashMap<>();
        for (Record r : List.of(held, copy)) {
            for (ContactWrite w : r.writes()) {
                if (w.removed() ? w.removedUntil() <= now : r.binding(w.contact()) == null) {
                    continue;
                }
                Pick p = picks.get(w.contact());
                if (p == null || w.beats(p.write) || (!p.write.beats(w) && r.stamp() > p.from.stamp())) {
                    picks.put(w.contact(), new Pick(w, r));
                }
            }
        }
        Pick cleared = picks.get(ContactWrite.EVERY);
        var writes = new ArrayList<ContactWrite>(picks.size());
        var removals = new ArrayList<ContactWrite>();
        var live = new ArrayList<Binding>();
        for (Pick p : picks.values()) {
            if (p.write.removed()) {
                removals.add(p.write);
            } else if (cleared == null || p.write.beats(cleared.write)) {
                writes.add(p.write);
                live.add(p.from.binding(p.write.contact()));
            }
        }
        writes.addAll(removals); // the live ones first, in the set's order, as a record reads back
        Record newer = copy.writtenAt() > held.writtenAt()
                || (copy.writtenAt() == held.writtenAt() && copy.stamp() > held.stamp()) ? copy : held;
        boolean removed = live.isEmpty() && newer.isRemoved();
        if (sameContent(held, removed, live, writes, now)) {
            return held;
        }
        long stamp = Math.max(held.stamp(), copy.stamp());
        if (sameContent(copy, removed, live, writes, now) && copy.stamp() > held.stamp() && newerVersion(copy, held)) {
            return copy;
        }
        long at = Math.max(held.writtenAt(), copy.writtenAt());
        if (removed) {
            return new Record(held.aor(), held.key(), stamp + 1, null, newer.removedUntil(), at, writes);
        }
        long version = Math.max(version(held), version(copy)) + 1;
        long retainUntil = Math.max(retainUntil(held), retainUntil(copy));
        return new Record(held.aor(), held.key(), stamp + 1, new BindingSet(held.aor(), version, retainUntil, live), 0, at, writes);
    }

    private record Pick(ContactWrite write, Record from) {
    }

    /** Whether {@code r} holds what a merge found, removals kept past their time aside. */
    private static boolean sameContent(Record r, boolean removed, List<Binding> live, List<ContactWrite> writes, long now) {
        return r.isRemoved() == removed
                && (removed || Set.copyOf(r.set().bindings()).equals(Set.copyOf(live)))
                && r.writes().stream().filter(w -> !w.removed() || w.removedUntil() > now).collect(java.util.stream.Collectors.toSet())
                        .equals(Set.copyOf(writes));
    }

    /** Whether a compare-and-set that read {@code held} would fail against {@code copy}. */
    private static boolean newerVersion(Record copy, Record held) {
        return copy.isRemoved() || held.isRemoved() || copy.set().version() > held.set().version();
    }

    private static long version(Record r) {
        return r.isRemoved() ? 0 : r.set().version();
    }

    private static long retainUntil(Record r) {
        return r.isRemoved() ? 0 : r.set().retainUntil();
    }

    private static Map<String, ContactWrite> byContact(List<ContactWrite> writes) {
        var map = new LinkedHashMap<String, ContactWrite>();
        writes.forEach(w -> map.put(w.contact(), w));
        return map;
    }
}
