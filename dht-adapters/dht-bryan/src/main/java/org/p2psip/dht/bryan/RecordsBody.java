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
import org.p2psip.dht.ring.store.RecordCodec;
import org.p2psip.dht.ring.store.RecordLink.Cut;

/**
 * The body of {@code DHT-Op: copy} (Content-Type {@value #TYPE}): records handed over or copied
 * to replicas, each in the ring's {@link RecordCodec} encoding.
 * <pre>
 * body   = count:u16 (length:u32 record)*count
 * </pre>
 */
final class RecordsBody {

    static final String TYPE = "application/vnd.p2psip.records";
    /** The body of get answers and put requests: one set in {@link BindingCodec}'s encoding. */
    static final String SET_TYPE = "application/vnd.p2psip.bindings";
    /** The body of an update: the AOR (u16 length, UTF-8), then the change as its maker encoded it. */
    static final String CHANGE_TYPE = "application/vnd.p2psip.change";
    /**
     * The body of an update's answer: the rules' answer for the change's maker (u16 length, then
     * its bytes), then the Content-Type (UTF) and the body the answer carries besides: the set, or
     * the asker's copy of the record written ({@value #TYPE}).
     */
    static final String UPDATED_TYPE = "application/vnd.p2psip.updated";

    /** An update's answer read ({@value #UPDATED_TYPE}): the rules' answer, and the body it wraps with its type. */
    record Updated(byte[] answer, String contentType, byte[] body) {
    }

    private RecordsBody() {
    }

    /** Splits {@code records} into bodies of about {@code maxBytes} each (at least one record per body). */
    static List<byte[]> encode(List<Record> records, int maxBytes) {
        var bodies = new ArrayList<byte[]>();
        for (int next = 0; next < records.size(); ) {
            Cut body = cut(records.subList(next, records.size()), maxBytes);
            bodies.add(body.message());
            next += body.count();
        }
        return bodies;
    }

    /** One body of the first {@code records}: as many as fit about {@code maxBytes} (at least one, at most 65,535). */
    static Cut cut(List<Record> records, int maxBytes) {
        var batch = new ArrayList<byte[]>();
        int size = 0;
        for (Record record : records) {
            byte[] one = encodeOne(record);
            if (!batch.isEmpty() && (size + one.length > maxBytes || batch.size() == 0xFFFF)) {
                break;
            }
            batch.add(one);
            size += one.length;
        }
        return new Cut(join(batch), batch.size());
    }

    static List<Record> decode(byte[] body) {
        var in = new DataInputStream(new ByteArrayInputStream(body));
        try {
            int count = in.readUnsignedShort();
            var records = new ArrayList<Record>(count);
            for (int i = 0; i < count; i++) {
                int length = in.readInt();
                if (length < 0 || length > in.available()) {
                    throw new MalformedBindingException("record body truncated");
                }
                records.add(RecordCodec.decode(in.readNBytes(length)));
            }
            if (in.available() > 0) {
                throw new MalformedBindingException(in.available() + " bytes after the records");
            }
            return records;
        } catch (IOException e) {
            throw new MalformedBindingException("record body truncated: " + e);
        }
    }

    /** An update's answer body (see {@link #UPDATED_TYPE}). */
    static byte[] updated(byte[] answer, String contentType, byte[] body) {
        if (answer.length > 0xFFFF) {
            throw new IllegalStateException("the rules answered " + answer.length + " bytes, more than 65535");
        }
        var bytes = new ByteArrayOutputStream();
        try (var out = new DataOutputStream(bytes)) {
            out.writeShort(answer.length);
            out.write(answer);
            out.writeUTF(contentType);
            out.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Reads an update's answer body; MalformedBindingException when it is cut short. */
    static Updated updated(byte[] body) {
        var in = new DataInputStream(new ByteArrayInputStream(body));
        try {
            int length = in.readUnsignedShort();
            byte[] answer = in.readNBytes(length);
            if (answer.length < length || in.available() < 2) {
                throw new MalformedBindingException("an update's answer cut short");
            }
            String type = in.readUTF();
            return new Updated(answer, type, in.readAllBytes());
        } catch (IOException e) {
            throw new MalformedBindingException("an update's answer cut short: " + e);
        }
    }

    private static byte[] encodeOne(Record r) {
        byte[] record = RecordCodec.encode(r);
        return java.nio.ByteBuffer.allocate(4 + record.length).putInt(record.length).put(record).array();
    }

    private static byte[] join(List<byte[]> parts) {
        var bytes = new ByteArrayOutputStream();
        bytes.write(parts.size() >> 8);
        bytes.write(parts.size() & 0xFF);
        parts.forEach(bytes::writeBytes);
        return bytes.toByteArray();
    }
}
