package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.chord.Id;
import org.p2psip.dht.chord.Record;

/** The digest a responsible peer sends its replicas: what makes two sums differ, and its bodies. */
class DigestTest {

    private static final Id FROM = Id.hash("from");
    private static final Id TO = Id.hash("to");
    private static final long UNTIL = 4_000_000_000_000L;

    @Test
    void theSameRecordsInAnyOrderGiveTheSameDigest() {
        List<Record> records = records(300, 1);
        var shuffled = new ArrayList<>(records);
        Collections.shuffle(shuffled);
        Digest one = Digest.of(FROM, TO, records);
        assertEquals(one, Digest.of(FROM, TO, shuffled));
        assertTrue(one.differing(Digest.of(FROM, TO, shuffled)).isEmpty());
    }

    @Test
    void aNewerOrMissingRecordChangesOnlyItsBucket() {
        List<Record> records = records(300, 1);
        Record changed = records.stream().filter(r -> r.key().inHalfOpen(FROM, TO)).findFirst().orElseThrow();
        var newer = new ArrayList<>(records);
        newer.set(records.indexOf(changed), Record.of(changed.set(), changed.stamp() + 1));
        BitSet one = Digest.of(FROM, TO, records).differing(Digest.of(FROM, TO, newer));
        assertEquals(1, one.cardinality());
        assertTrue(one.get(Digest.bucket(changed.key())));
        var missing = new ArrayList<>(records);
        missing.remove(changed);
        assertEquals(one, Digest.of(FROM, TO, records).differing(Digest.of(FROM, TO, missing)));
        var removed = new ArrayList<>(records);
        removed.set(records.indexOf(changed), Record.removed(changed.aor(), changed.stamp(), UNTIL));
        assertEquals(one, Digest.of(FROM, TO, records).differing(Digest.of(FROM, TO, removed)));
    }

    @Test
    void recordsOutsideTheRangeDoNotCount() {
        List<Record> records = records(300, 1);
        List<Record> inside = records.stream().filter(r -> r.key().inHalfOpen(FROM, TO)).toList();
        assertTrue(inside.size() > 0 && inside.size() < records.size());
        assertEquals(Digest.of(FROM, TO, inside), Digest.of(FROM, TO, records));
    }

    @Test
    void bodiesRoundTripAndAWrongSizeIsRefused() {
        Digest digest = Digest.of(FROM, TO, records(50, 7));
        assertEquals(digest, Digest.decode(digest.encode()));
        assertThrows(IllegalArgumentException.class, () -> Digest.decode(new byte[100]));
        var buckets = new BitSet();
        buckets.set(0);
        buckets.set(17);
        buckets.set(255);
        assertEquals(buckets, Digest.decodeBuckets(Digest.encodeBuckets(buckets)));
        assertEquals(new BitSet(), Digest.decodeBuckets(Digest.encodeBuckets(new BitSet())));
        assertThrows(IllegalArgumentException.class, () -> Digest.decodeBuckets(new byte[] {0, 3, 1}));
        assertThrows(IllegalArgumentException.class, () -> Digest.decodeBuckets(new byte[0]));
    }

    private static List<Record> records(int count, long stamp) {
        var records = new ArrayList<Record>();
        for (int i = 0; i < count; i++) {
            String aor = "sip:digest" + i + "@example.com";
            var set = new BindingSet(aor, 1, UNTIL, List.of(new Binding(aor, "sip:ua@10.0.0.1", UNTIL, 1000, "c" + i, 1, List.of(), "", 0)));
            records.add(Record.of(set, stamp));
        }
        return records;
    }
}
