package org.p2psip.dht.ring.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.NodeRef;

class BatchesTest {

    /** Seven records a message, each written as its AOR and a newline. */
    private static final RecordLink SEVEN = new RecordLink() {
        @Override
        public Cut cut(List<Record> records) {
            int count = Math.min(7, records.size());
            var text = new StringBuilder();
            records.subList(0, count).forEach(r -> text.append(r.aor()).append('\n'));
            return new Cut(text.toString().getBytes(StandardCharsets.UTF_8), count);
        }

        @Override
        public CompletableFuture<?> send(NodeRef target, byte[] message) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void aMessageIsCutWhenFirstAskedForAndKeptForTheNextAsker() {
        List<Record> records = records(500);
        var read = new int[] {-1};
        List<Record> watched = new AbstractList<>() {
            @Override
            public Record get(int index) {
                read[0] = Math.max(read[0], index);
                return records.get(index);
            }

            @Override
            public int size() {
                return records.size();
            }
        };
        var batches = new Batches(watched, SEVEN);
        byte[] first = batches.get(0);
        assertTrue(read[0] < 7, "asking for the first message cut records up to " + read[0]);
        assertSame(first, batches.get(0), "the first message was cut again");
        int messages = 0;
        for (int i = 0; batches.has(i); i++) {
            int from = 7 * i;
            assertArrayEquals(SEVEN.cut(records.subList(from, records.size())).message(), batches.get(i), "message " + i);
            messages++;
        }
        assertEquals((records.size() + 6) / 7, messages);
        assertFalse(new Batches(List.of(), SEVEN).has(0));
    }

    private static List<Record> records(int count) {
        long until = System.currentTimeMillis() + 3_600_000;
        var records = new ArrayList<Record>();
        for (int i = 0; i < count; i++) {
            String aor = "sip:user" + i + "@example.com";
            var set = new BindingSet(aor, 1, until, List.of(new Binding(aor, "sip:ua" + i + "@10.0.0.9:5060", until, 1000,
                    "call-" + i, 1, List.of(), "", 0)));
            records.add(Record.of(set, 1000 + i));
        }
        return records;
    }
}
