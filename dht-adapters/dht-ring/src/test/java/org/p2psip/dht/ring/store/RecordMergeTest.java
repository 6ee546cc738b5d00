package org.p2psip.dht.ring.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;

/**
 * Two copies of one AOR's record written by different owners (a split ring's two sides) merge
 * contact by contact: no acknowledged binding of either side is dropped, a removal on either side
 * holds against an older write of the other, and copies along one owner's line replace each other.
 */
class RecordMergeTest {

    private static final String AOR = "sip:alice@example.com";
    private static final long KEEP = 600_000;
    private static final long T = 1_000_000;

    @Test
    void theOwnersNextWriteReplacesTheCopyItWasWrittenOver() {
        Record first = write(null, T, "sip:a@1");
        Record second = write(first, T + 10, "sip:a@1", "sip:b@2");
        assertSame(second, RecordMerge.merge(first, second, T + 20));
        assertSame(second, RecordMerge.merge(second, first, T + 20), "an older copy of the same line adds nothing");
    }

    @Test
    void eachSidesNewContactIsKeptAndTheMergeOutranksBothSides() {
        Record common = write(null, T, "sip:a@1");
        Record left = write(common, T + 10, "sip:a@1", "sip:left@2");
        Record right = write(write(common, T + 20, "sip:a@1", "sip:right@3"), T + 30, "sip:a@1", "sip:right@3");
        Record merged = RecordMerge.merge(left, right, T + 40);
        assertEquals(Set.of("sip:a@1", "sip:left@2", "sip:right@3"), contacts(merged));
        assertTrue(merged.stamp() > Math.max(left.stamp(), right.stamp()), "a replica of either side takes it");
        assertTrue(merged.set().version() > Math.max(left.set().version(), right.set().version()),
                "a compare-and-set that read either side fails");
        assertEquals(contacts(merged), contacts(RecordMerge.merge(right, left, T + 40)), "the merge does not depend on order");
        assertSame(merged, RecordMerge.merge(merged, left, T + 50), "merging again adds nothing");
    }

    @Test
    void aRemovalOnOneSideHoldsAgainstTheOtherSidesOlderCopyButNotAgainstALaterRefresh() {
        Record common = write(null, T, "sip:a@1", "sip:b@2");
        Record removedB = write(common, T + 20, "sip:a@1");
        Record untouched = write(common, T + 10, "sip:a@1", "sip:b@2", "sip:c@3");
        assertEquals(Set.of("sip:a@1", "sip:c@3"), contacts(RecordMerge.merge(removedB, untouched, T + 30)));
        var refreshed = new BindingSet(AOR, untouched.set().version() + 1, T + 7_200_000,
                List.of(untouched.binding("sip:a@1"), binding("sip:b@2", T + 30), untouched.binding("sip:c@3")));
        Record refreshedB = RecordMerge.written(untouched, refreshed, false, AOR, untouched.stamp() + 1, T + 30, KEEP);
        assertEquals(Set.of("sip:a@1", "sip:b@2", "sip:c@3"), contacts(RecordMerge.merge(removedB, refreshedB, T + 40)),
                "the refresh came after the removal");
    }

    @Test
    void aRemovedAorComesBackOnlyWithTheBindingsWrittenAfterItsRemoval() {
        Record common = write(null, T, "sip:a@1");
        Record marker = RecordMerge.written(common, null, true, AOR, common.stamp() + 1, T + 20, KEEP);
        Record olderSide = write(common, T + 10, "sip:a@1", "sip:b@2");
        assertTrue(RecordMerge.merge(marker, olderSide, T + 30).isRemoved(), "nothing was written after the removal");
        Record laterSide = write(common, T + 40, "sip:a@1", "sip:c@3");
        Record merged = RecordMerge.merge(marker, laterSide, T + 50);
        assertEquals(Set.of("sip:c@3"), contacts(merged), "only what the other side wrote after the removal");
    }

    @Test
    void aClearingWriteRemovesWhatTheOtherSideWroteBeforeItButNotAfter() {
        Record common = write(null, T, "sip:a@1");
        Record before = write(common, T + 10, "sip:a@1", "sip:b@2");
        Record after = write(common, T + 30, "sip:a@1", "sip:c@3");
        Record cleared = RecordMerge.written(common, new BindingSet(AOR, 2, T + 7_200_000, List.of()), true, AOR,
                common.stamp() + 1, T + 20, KEEP);
        assertEquals(Set.of(), contacts(RecordMerge.merge(cleared, before, T + 40)), "Contact: * came after b");
        assertEquals(Set.of("sip:c@3"), contacts(RecordMerge.merge(cleared, after, T + 40)), "c came after Contact: *");
        Record removedOne = RecordMerge.written(common, new BindingSet(AOR, 2, T + 7_200_000, List.of()), false, AOR,
                common.stamp() + 1, T + 20, KEEP);
        assertEquals(Set.of("sip:b@2"), contacts(RecordMerge.merge(removedOne, before, T + 40)),
                "removing a by name says nothing of b");
    }

    @Test
    void recordsWithTheirContactWritesReadBackAsTheyWereKept() {
        Record common = write(null, T, "sip:a@1", "sip:b@2");
        Record left = write(common, T + 10, "sip:b@2", "sip:c@3");
        Record right = RecordMerge.written(common, new BindingSet(AOR, 2, T + 7_200_000, List.of()), true, AOR,
                common.stamp() + 1, T + 20, KEEP);
        for (Record r : List.of(common, left, right, RecordMerge.merge(left, right, T + 30),
                RecordMerge.written(left, null, true, AOR, left.stamp() + 1, T + 40, KEEP))) {
            assertEquals(r, PackedRecord.unpack(PackedRecord.pack(r)));
            assertEquals(r, RecordCodec.decode(RecordCodec.encode(r)));
        }
    }

    @Test
    void copiesWithoutContactWritesAreMergedWholeByStamp() {
        Record low = Record.of(set(null, T, "sip:a@1"), 3);
        Record high = Record.of(set(null, T, "sip:b@2"), 4);
        assertSame(high, RecordMerge.merge(low, high, T));
        assertSame(high, RecordMerge.merge(high, low, T));
    }

    /** The owner's write of a set of {@code contacts} over {@code held}, at {@code now}. */
    private static Record write(Record held, long now, String... contacts) {
        return RecordMerge.written(held, set(held, now, contacts), false, AOR, held == null ? 1 : held.stamp() + 1, now, KEEP);
    }

    /** A stored set of {@code contacts}: those {@code held} has kept as they were, the others new at {@code now}. */
    private static BindingSet set(Record held, long now, String... contacts) {
        long version = held == null || held.isRemoved() ? 1 : held.set().version() + 1;
        List<Binding> bindings = java.util.Arrays.stream(contacts)
                .map(c -> held != null && held.binding(c) != null ? held.binding(c) : binding(c, now)).toList();
        return new BindingSet(AOR, version, now + 7_200_000, bindings);
    }

    private static Binding binding(String contact, long now) {
        return new Binding(AOR, contact, now + 3_600_000, Binding.Q_UNSPECIFIED, "call-" + contact, now, List.of(), "", 0);
    }

    private static Set<String> contacts(Record r) {
        return r.isRemoved() ? Set.of() : r.set().bindings().stream().map(Binding::contact).collect(Collectors.toSet());
    }
}
