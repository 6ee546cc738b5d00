package org.p2psip.dht.ring.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;

class PackedRecordsTest {

    static final long NOW = 1_700_000_000_000L;

    static Record record(String aor, long stamp, long version) {
        var b = new Binding(aor, "sip:" + stamp + "@192.0.2.1", NOW + 3_600_000, 500, "call-" + aor, 7, List.of("<sip:edge;lr>"),
                "", 0);
        return Record.of(new BindingSet(aor, version, NOW + 7_200_000, List.of(b)), stamp);
    }

    /** A record under a chosen key (not the AOR's hash): to give many records one 64-bit prefix. */
    static Record at(Id key, String aor, long stamp) {
        Record r = record(aor, stamp, 1);
        return new Record(r.aor(), key, r.stamp(), r.set(), 0, 0, List.of());
    }

    @Test
    void aRecordAndAMarkerRoundTripAndAreReadInPlace() {
        Record set = record("sip:alice@example.com", 12, 3);
        byte[] packed = PackedRecord.pack(set);
        assertEquals(set, PackedRecord.unpack(packed));
        assertEquals(12, PackedRecord.stamp(packed));
        assertEquals(3, PackedRecord.version(packed));
        assertTrue(PackedRecord.visibleAt(packed, NOW));
        assertTrue(PackedRecord.forgettableAt(packed, NOW + 7_200_000), "forgettable once its retention passed");
        assertFalse(PackedRecord.visibleAt(packed, NOW + 7_200_000));
        Record marker = Record.removed("sip:alice@example.com", 13, NOW + 60_000);
        byte[] removed = PackedRecord.pack(marker);
        assertEquals(marker, PackedRecord.unpack(removed));
        assertEquals(0, PackedRecord.version(removed));
        assertFalse(PackedRecord.visibleAt(removed, NOW));
        assertFalse(PackedRecord.forgettableAt(removed, NOW));
        assertTrue(PackedRecord.forgettableAt(removed, NOW + 60_000));
    }

    /** Removal markers are counted apart, so that a node's record count is its live records. */
    @Test
    void markersAreCountedApartThroughReplacementAndDeletion() {
        var table = new PackedRecords();
        table.put(PackedRecord.pack(record("sip:alice@example.com", 1, 1)));
        table.put(PackedRecord.pack(record("sip:bob@example.com", 1, 1)));
        assertEquals(0, table.markers());
        table.put(PackedRecord.pack(Record.removed("sip:alice@example.com", 2, NOW + 60_000)));
        assertEquals(2, table.size());
        assertEquals(1, table.markers());
        table.put(PackedRecord.pack(record("sip:alice@example.com", 3, 1)));
        assertEquals(0, table.markers(), "a record written over its marker is live again");
        table.put(PackedRecord.pack(Record.removed("sip:bob@example.com", 2, NOW + 60_000)));
        assertEquals(1, table.markers());
        table.removeIf(r -> PackedRecord.forgettableAt(r, NOW + 60_000));
        assertEquals(1, table.size());
        assertEquals(0, table.markers());
    }

    @Test
    void randomPutsAndRemovalsAgreeWithAMapThroughGrowthAndSharedPrefixes() {
        var random = new Random(7);
        var table = new PackedRecords();
        Map<Id, Record> model = new HashMap<>();
        List<Id> keys = new ArrayList<>();
        BigInteger sharedPrefix = new BigInteger("FFFFFFF789ABCDEF", 16).shiftLeft(96); // home slot near the end: the cluster wraps
        for (int i = 0; i < 3000; i++) {
            // a third of the keys share their first 64 bits: they collide on the prefix and probe on
            keys.add(i % 3 == 0 ? new Id(sharedPrefix.add(BigInteger.valueOf(i))) : Id.hash("sip:u" + i + "@x"));
        }
        for (int step = 0; step < 40_000; step++) {
            Id key = keys.get(random.nextInt(keys.size()));
            if (random.nextInt(4) == 0) {
                long cut = random.nextInt(50);
                table.removeIf(p -> PackedRecord.stamp(p) == cut);
                model.values().removeIf(r -> r.stamp() == cut);
            } else {
                Record r = at(key, "sip:" + key.toString().substring(0, 8) + "@x", random.nextInt(50));
                table.put(PackedRecord.pack(r));
                model.put(key, r);
            }
        }
        assertEquals(model.size(), table.size());
        for (Id key : keys) {
            byte[] held = table.get(key);
            if (model.containsKey(key)) {
                assertEquals(model.get(key), PackedRecord.unpack(held), "the record of " + key);
            } else {
                assertNull(held, "no record of " + key);
            }
        }
        assertEquals(model.size(), table.matching(k -> true).size());
        assertEquals(model.keySet().stream().filter(k -> k.value().testBit(159)).count(),
                table.matching(k -> k.value().testBit(159)).size());
    }
}
