package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.store.Record;

/** The copy body's split into REGISTER-sized bodies, eager and on demand. */
class RecordsBodyTest {

    private static final int MAX_BYTES = 1200;

    @Test
    void theBodiesStayUnderTheLimitAndCarryEveryRecordInOrder() {
        List<Record> records = records(500);
        List<byte[]> bodies = RecordsBody.encode(records, MAX_BYTES);
        assertTrue(bodies.size() > 10, "500 records in " + bodies.size() + " bodies of " + MAX_BYTES + " bytes");
        var decoded = new ArrayList<Record>();
        for (byte[] body : bodies) {
            assertTrue(body.length <= MAX_BYTES + 2, "a body of " + body.length + " bytes"); // + the u16 count
            decoded.addAll(RecordsBody.decode(body));
        }
        assertEquals(records.size(), decoded.size());
        for (int i = 0; i < records.size(); i++) {
            assertEquals(records.get(i).aor(), decoded.get(i).aor());
            assertEquals(records.get(i).stamp(), decoded.get(i).stamp());
            assertEquals(records.get(i).set().bindings(), decoded.get(i).set().bindings());
        }
        var removed = RecordsBody.decode(RecordsBody.encode(List.of(Record.removed("sip:gone@example.com", 7, 99)), MAX_BYTES).get(0));
        assertTrue(removed.get(0).isRemoved());
        assertEquals(99, removed.get(0).removedUntil());
    }

    @Test
    void aCutTakesTheRecordsThatFitOneBodyAndTheBodiesAreTheCutsInTurn() {
        List<Record> records = records(500);
        var first = RecordsBody.cut(records, MAX_BYTES);
        assertTrue(first.count() > 1 && first.count() < records.size(), "first body holds " + first.count());
        assertTrue(first.message().length <= MAX_BYTES + 2, "first body is " + first.message().length + " bytes");
        assertArrayEquals(RecordsBody.encode(records, MAX_BYTES).get(0), first.message());
        assertEquals(records.subList(0, first.count()).stream().map(Record::aor).toList(),
                RecordsBody.decode(first.message()).stream().map(Record::aor).toList());
    }

    private static List<Record> records(int count) {
        long until = System.currentTimeMillis() + 3_600_000;
        var records = new ArrayList<Record>();
        for (int i = 0; i < count; i++) {
            String aor = "sip:user" + i + "@example.com";
            var set = new BindingSet(aor, 1, until, List.of(new Binding(aor, "sip:ua" + i + "@10.0.0.9:5060", until, 1000, "call-" + i, 1, List.of(), "", 0)));
            records.add(Record.of(set, 1000 + i));
        }
        return records;
    }
}
