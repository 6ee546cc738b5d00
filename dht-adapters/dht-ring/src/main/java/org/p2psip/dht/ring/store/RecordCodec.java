package org.p2psip.dht.ring.store;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.ring.Id;

/**
 * A {@link Record} as bytes: how every ring backend carries one (Chord in its frames, Bryan in
 * SIP bodies) and, after its key, how a node keeps one ({@link PackedRecord}). The fixed fields
 * come first, so that a kept record's stamp, retention and version read in place. Stateless.
 *
 * <pre>
 * record   = stamp:i64 removedUntil:i64 writtenAt:i64 restLength:i32 rest times removals
 * rest     = the set in {@link BindingCodec}'s encoding (removedUntil 0), or the AOR in UTF-8 (a removal marker)
 * times    = count:u16 at:i64*count     (when each of the set's bindings was written, in the set's order;
 *                                       count 0 for a record without contact writes)
 * removals = count:u16 (contactLength:u16 contact:UTF-8 at:i64 removedUntil:i64)*count
 * </pre>
 * A live contact's write is its time alone, the binding beside it naming the contact: a node holds
 * millions of records, most of one binding, and its URI twice would cost a third more memory.
 */
public final class RecordCodec {

    static final int STAMP = 0;
    static final int REMOVED_UNTIL = 8;
    static final int WRITTEN_AT = 16;
    static final int REST_LENGTH = 24;
    static final int REST = 28;

    private RecordCodec() {
    }

    public static byte[] encode(Record record) {
        return encode(record, new byte[0]);
    }

    /** The record's encoding after {@code before} (a kept record's key). */
    static byte[] encode(Record record, byte[] before) {
        byte[] rest = record.isRemoved() ? record.aor().getBytes(StandardCharsets.UTF_8) : BindingCodec.encode(record.set());
        long[] times = times(record);
        List<ContactWrite> removals = record.writes().stream().filter(ContactWrite::removed).toList();
        List<byte[]> contacts = removals.stream().map(w -> w.contact().getBytes(StandardCharsets.UTF_8)).toList();
        int size = before.length + REST + rest.length + 2 + 8 * times.length + 2;
        for (byte[] c : contacts) {
            size += 2 + c.length + 16;
        }
        ByteBuffer out = ByteBuffer.allocate(size).put(before);
        out.putLong(record.stamp()).putLong(record.removedUntil()).putLong(record.writtenAt()).putInt(rest.length).put(rest);
        out.putShort((short) times.length);
        for (long at : times) {
            out.putLong(at);
        }
        out.putShort((short) contacts.size());
        for (int i = 0; i < contacts.size(); i++) {
            ContactWrite w = removals.get(i);
            out.putShort((short) contacts.get(i).length).put(contacts.get(i)).putLong(w.at()).putLong(w.removedUntil());
        }
        return out.array();
    }

    /**
     * When each of the set's bindings was written, in the set's order: none for a record without
     * contact writes; the record's last write for a binding it has none for.
     */
    private static long[] times(Record record) {
        if (record.isRemoved() || record.writes().isEmpty()) {
            return new long[0];
        }
        var at = new java.util.HashMap<String, Long>();
        record.writes().stream().filter(w -> !w.removed()).forEach(w -> at.put(w.contact(), w.at()));
        return record.set().bindings().stream().mapToLong(b -> at.getOrDefault(b.contact(), record.writtenAt())).toArray();
    }

    /** Reads a record; MalformedBindingException when the bytes are not one. */
    public static Record decode(byte[] bytes) {
        return decode(bytes, 0, null);
    }

    /** Reads the record that starts at {@code offset}; its key is {@code key}, or the AOR's hash when null. */
    static Record decode(byte[] bytes, int offset, Id key) {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes, offset, bytes.length - offset);
            long stamp = in.getLong();
            long removedUntil = in.getLong();
            long writtenAt = in.getLong();
            int length = in.getInt();
            if (length < 0 || length > in.remaining()) {
                throw new MalformedBindingException("a record's set of " + length + " bytes, " + in.remaining() + " left");
            }
            byte[] rest = new byte[length];
            in.get(rest);
            String aor;
            BindingSet set = null;
            if (removedUntil != 0) {
                aor = new String(rest, StandardCharsets.UTF_8);
            } else {
                set = BindingCodec.decode(rest);
                aor = set.aor();
            }
            int times = Short.toUnsignedInt(in.getShort());
            if (times != 0 && (set == null || times != set.bindings().size())) {
                throw new MalformedBindingException(times + " write times for a record of "
                        + (set == null ? "no set" : set.bindings().size() + " bindings"));
            }
            var writes = new ArrayList<ContactWrite>(times);
            for (int i = 0; i < times; i++) {
                writes.add(new ContactWrite(set.bindings().get(i).contact(), in.getLong(), 0));
            }
            int removals = Short.toUnsignedInt(in.getShort());
            for (int i = 0; i < removals; i++) {
                byte[] contact = new byte[Short.toUnsignedInt(in.getShort())];
                in.get(contact);
                writes.add(new ContactWrite(new String(contact, StandardCharsets.UTF_8), in.getLong(), in.getLong()));
            }
            if (in.hasRemaining()) {
                throw new MalformedBindingException(in.remaining() + " bytes after a record");
            }
            return new Record(aor, key != null ? key : Id.hash(aor), stamp, set, removedUntil, writtenAt, writes);
        } catch (BufferUnderflowException e) {
            throw new MalformedBindingException("a record cut short");
        }
    }
}
