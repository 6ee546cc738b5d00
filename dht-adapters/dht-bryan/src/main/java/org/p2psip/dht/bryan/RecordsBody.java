package org.p2psip.dht.bryan;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.ring.store.Record;

/**
 * The body of {@code DHT-Op: copy} (Content-Type {@value #TYPE}): records handed over or copied
 * to replicas, each with its stamp; a set travels in the shared {@link BindingCodec} encoding.
 * <pre>
 * body   = count:u16 record*count
 * record = stamp:u64 kind:u8 (0: set:u32-length-prefixed BindingCodec bytes
 *                             1: aor:u16-length-prefixed UTF-8, removedUntil:i64)
 * </pre>
 */
final class RecordsBody {

    static final String TYPE = "application/vnd.p2psip.records";
    /** The body of get answers and put requests: one set in {@link BindingCodec}'s encoding. */
    static final String SET_TYPE = "application/vnd.p2psip.bindings";

    private RecordsBody() {
    }

    /** Splits {@code records} into bodies of about {@code maxBytes} each (at least one record per body). */
    static List<byte[]> encode(List<Record> records, int maxBytes) {
        var bodies = new ArrayList<byte[]>();
        var lazily = new Bodies(records, maxBytes);
        for (int i = 0; lazily.has(i); i++) {
            bodies.add(lazily.get(i));
        }
        return bodies;
    }

    /**
     * The same bodies as {@link #encode}, each encoded when it is first asked for and kept for the
     * next asker. A full copy of a few hundred thousand records, encoded at once, held a peer's
     * loop for most of a second, long enough for its users' requests to pile up past the
     * servlet's admission bound; asked for one by one, as each previous body was taken, the
     * encoding is spread between the other work of the loop. Not thread-safe.
     */
    static final class Bodies {
        private final List<Record> records;
        private final int maxBytes;
        private final List<byte[]> encoded = new ArrayList<>();
        private int nextRecord;
        private byte[] carried; // the record that did not fit the last body: the first of the next one

        Bodies(List<Record> records, int maxBytes) {
            this.records = records;
            this.maxBytes = maxBytes;
        }

        /** Whether there is an {@code index}-th body (from 0). */
        boolean has(int index) {
            while (encoded.size() <= index && (carried != null || nextRecord < records.size())) {
                encoded.add(next());
            }
            return index < encoded.size();
        }

        byte[] get(int index) {
            if (!has(index)) {
                throw new IndexOutOfBoundsException("no body " + index + " of " + records.size() + " records");
            }
            return encoded.get(index);
        }

        private byte[] next() {
            var batch = new ArrayList<byte[]>();
            int size = 0;
            if (carried != null) {
                batch.add(carried);
                size = carried.length;
                carried = null;
            }
            while (nextRecord < records.size()) {
                byte[] one = encodeOne(records.get(nextRecord++));
                if (!batch.isEmpty() && (size + one.length > maxBytes || batch.size() == 0xFFFF)) {
                    carried = one;
                    break;
                }
                batch.add(one);
                size += one.length;
            }
            return join(batch);
        }
    }

    static List<Record> decode(byte[] body) {
        var in = new DataInputStream(new ByteArrayInputStream(body));
        try {
            int count = in.readUnsignedShort();
            var records = new ArrayList<Record>(count);
            for (int i = 0; i < count; i++) {
                long stamp = in.readLong();
                int kind = in.readUnsignedByte();
                if (kind == 0) {
                    int length = in.readInt();
                    if (length < 0 || length > in.available()) {
                        throw new MalformedBindingException("record body truncated");
                    }
                    records.add(Record.of(BindingCodec.decode(in.readNBytes(length)), stamp));
                } else if (kind == 1) {
                    records.add(Record.removed(in.readUTF(), stamp, in.readLong()));
                } else {
                    throw new MalformedBindingException("unknown record kind " + kind);
                }
            }
            if (in.available() > 0) {
                throw new MalformedBindingException(in.available() + " bytes after the records");
            }
            return records;
        } catch (IOException e) {
            throw new MalformedBindingException("record body truncated: " + e);
        }
    }

    private static byte[] encodeOne(Record r) {
        var bytes = new ByteArrayOutputStream();
        try (var out = new DataOutputStream(bytes)) {
            out.writeLong(r.stamp());
            if (r.set() != null) {
                byte[] set = BindingCodec.encode(r.set());
                out.writeByte(0);
                out.writeInt(set.length);
                out.write(set);
            } else {
                out.writeByte(1);
                out.writeUTF(r.aor());
                out.writeLong(r.removedUntil());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static byte[] join(List<byte[]> parts) {
        var bytes = new ByteArrayOutputStream();
        bytes.write(parts.size() >> 8);
        bytes.write(parts.size() & 0xFF);
        parts.forEach(bytes::writeBytes);
        return bytes.toByteArray();
    }
}
