package org.p2psip.dht.ring.store;

import java.util.ArrayList;
import java.util.List;
import org.p2psip.dht.ring.store.RecordLink.Cut;

/**
 * Records cut into the messages that carry them, each cut when it is first asked for and kept for
 * the next asker (the next replica). A full copy of a few hundred thousand records, encoded at
 * once, held a node's loop for most of a second, long enough for its users' requests to pile up
 * past the servlet's admission bound; cut one by one, as each previous message was taken, the
 * encoding is spread between the other work of the loop. Not thread-safe.
 */
public final class Batches {

    private final List<Record> records;
    private final RecordLink link;
    private final List<byte[]> cut = new ArrayList<>();
    private int nextRecord;

    public Batches(List<Record> records, RecordLink link) {
        this.records = records;
        this.link = link;
    }

    /** Whether there is an {@code index}-th message (from 0). */
    public boolean has(int index) {
        while (cut.size() <= index && nextRecord < records.size()) {
            Cut next = link.cut(records.subList(nextRecord, records.size()));
            cut.add(next.message());
            nextRecord += next.count();
        }
        return index < cut.size();
    }

    public byte[] get(int index) {
        if (!has(index)) {
            throw new IndexOutOfBoundsException("no message " + index + " for " + records.size() + " records");
        }
        return cut.get(index);
    }
}
