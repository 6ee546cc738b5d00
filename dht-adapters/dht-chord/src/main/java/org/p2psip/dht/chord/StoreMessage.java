package org.p2psip.dht.chord;

import java.util.ArrayList;
import java.util.List;
import org.p2psip.dht.ring.store.Record;

/**
 * The payload of a STORE: count:u64, then the records ({@link ChordCodec.Writer#record}). One carries
 * at most {@link #BATCH} records and about {@link #BATCH_BYTES} bytes, so that a hand-over of
 * many records stays far below the frame limit.
 */
final class StoreMessage {

    static final int BATCH = 256;
    private static final int BATCH_BYTES = 512 * 1024;

    private StoreMessage() {
    }

    /** One STORE payload of the first of {@code copies} (at least one). */
    static byte[] batch(List<Record> copies) {
        var body = new ChordCodec.Writer();
        int count = 0;
        while (count < copies.size() && count < BATCH && body.size() < BATCH_BYTES) {
            body.record(copies.get(count++));
        }
        return new ChordCodec.Writer().u64(count).raw(body.bytes()).bytes();
    }

    /** How many records {@code payload} carries. */
    static int count(byte[] payload) {
        return (int) new ChordCodec.Reader(payload).u64();
    }

    static List<Record> read(byte[] payload) {
        var in = new ChordCodec.Reader(payload);
        long count = in.u64();
        var copies = new ArrayList<Record>();
        for (long i = 0; i < count; i++) {
            copies.add(in.record());
        }
        return copies;
    }
}
