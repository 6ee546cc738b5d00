package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.bamboo.storage.StoredValue;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.store.ContactWrite;
import org.p2psip.dht.ring.store.Record;

/** The root's writes as records: each contact's write noted, removals kept as long as the record they changed. */
class VersionedRecordTest {

    private static final String AOR = "sip:alice@example.com";
    private static final Id KEY = Id.hash(AOR);
    private static final byte[] SECRET_HASH = Id.sha1(new byte[] {1});
    private static final long NOW = 1_800_000_000_000L;
    private static final long RETAIN = NOW + 3_600_000;

    @Test
    void aPutNotesEachContactItWroteAndTheBindingItDropped() {
        List<StoredValue> first = swap(List.of(), 0, set(1, "sip:a@192.0.2.1", "sip:b@192.0.2.2"), NOW);
        Record one = record(first);
        assertEquals(1, one.stamp());
        assertEquals(List.of(new ContactWrite("sip:a@192.0.2.1", NOW, 0), new ContactWrite("sip:b@192.0.2.2", NOW, 0)),
                one.writes());

        List<StoredValue> second = swap(first, 1, set(2, "sip:a@192.0.2.1"), NOW + 10);
        Record two = record(second);
        assertEquals(2, two.stamp());
        assertEquals(2, second.get(0).stamp(), "the value's stamp is its record's");
        assertEquals(List.of(new ContactWrite("sip:a@192.0.2.1", NOW, 0), new ContactWrite("sip:b@192.0.2.2", NOW + 10, RETAIN)),
                two.writes(), "the unchanged contact keeps its write; the dropped one is kept as removed");
    }

    @Test
    void aRemovalIsAMarkerKeptUntilTheRemovedSetWouldHaveExpired() {
        List<StoredValue> stored = swap(List.of(), 0, set(1, "sip:a@192.0.2.1"), NOW);
        boolean[] done = {false};
        List<StoredValue> removed = VersionedRecord.forget(stored, KEY, 1, SECRET_HASH, NOW + 10, done);
        assertTrue(done[0]);
        StoredValue tombstone = removed.get(0);
        assertTrue(tombstone.removed());
        assertEquals(RETAIN, tombstone.expiresAt());
        Record marker = tombstone.record(KEY);
        assertTrue(marker.isRemoved());
        assertTrue(marker.writes().contains(new ContactWrite(ContactWrite.EVERY, NOW + 10, RETAIN)), marker.writes().toString());

        Record again = record(swap(removed, 0, set(1, "sip:b@192.0.2.2"), NOW + 20));
        assertEquals(3, again.stamp());
        assertTrue(again.writes().contains(new ContactWrite(ContactWrite.EVERY, NOW + 10, RETAIN)),
                "a put after the removal carries it on: " + again.writes());
    }

    @Test
    void aRetriedPutSucceedsAndAStaleOneWritesNothing() {
        BindingSet next = set(1, "sip:a@192.0.2.1");
        List<StoredValue> stored = swap(List.of(), 0, next, NOW);
        boolean[] done = {false};
        assertNull(VersionedRecord.swap(stored, KEY, 0, BindingCodec.encode(next), SECRET_HASH, NOW + 5, done));
        assertTrue(done[0], "the retry finds its own set stored");
        done[0] = false;
        assertNull(VersionedRecord.swap(stored, KEY, 0, BindingCodec.encode(set(1, "sip:b@192.0.2.2")), SECRET_HASH,
                NOW + 5, done));
        assertEquals(false, done[0], "a put that read an older version is refused");
    }

    @Test
    void aSetOfAnotherAorOrBytesThatAreNoSetWriteNothing() {
        var other = new BindingSet("sip:bob@example.com", 1, RETAIN, List.of());
        assertThrows(MalformedBindingException.class, () -> VersionedRecord.swap(List.of(), KEY, 0,
                BindingCodec.encode(other), SECRET_HASH, NOW, new boolean[1]));
        assertThrows(MalformedBindingException.class, () -> VersionedRecord.swap(List.of(), KEY, 0,
                new byte[] {1, 2, 3}, SECRET_HASH, NOW, new boolean[1]));
    }

    private static List<StoredValue> swap(List<StoredValue> current, long expected, BindingSet next, long now) {
        boolean[] done = {false};
        List<StoredValue> written = VersionedRecord.swap(current, KEY, expected, BindingCodec.encode(next), SECRET_HASH, now, done);
        assertTrue(done[0], "stored");
        assertEquals(1, written.size());
        return written;
    }

    private static Record record(List<StoredValue> values) {
        return values.get(0).record(KEY);
    }

    private static BindingSet set(long version, String... contacts) {
        return new BindingSet(AOR, version, RETAIN, List.of(contacts).stream()
                .map(c -> new Binding(AOR, c, RETAIN, Binding.Q_UNSPECIFIED, "call-" + c, 1, List.of(), "", 0)).toList());
    }
}
