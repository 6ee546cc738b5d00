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
 * record = stamp:i64 removedUntil:i64 writtenAt:i64 restLength:i32 rest writes
 * rest   = the set in {@link BindingCodec}'s encoding (removedUntil 0), or the AOR in UTF-8 (a removal marker)
 * writes = count:u16 (contactLength:u16 contact:UTF-8 at:i64 removedUntil:i64)*count
 * </pre>
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
        List<byte[]> contacts = record.writes().stream().map(w -> w.contact().getBytes(StandardCharsets.UTF_8)).toList();
        int size = before.length + REST + rest.length + 2;
        for (byte[] c : contacts) {
            size += 2 + c.length + 16;
        }
        ByteBuffer out = ByteBuffer.allocate(size).put(before);
        out.putLong(record.stamp()).putLong(record.removedUntil()).putLong(record.writtenAt()).putInt(rest.length).put(rest);
        out.putShort((short) contacts.size());
        for (int i = 0; i < contacts.size(); i++) {
            ContactWrite w = record.writes().get(i);
            out.putShort((short) contacts.get(i).length).put(contacts.get(i)).putLong(w.at()).putLong(w.removedUntil());
        }
        return out.array();
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
            int count = Short.toUnsignedInt(in.getShort());
            var writes = new ArrayList<ContactWrite>(count);
            for (int i = 0; i < count; i++) {
                byte[] contact = new byte[Short.toUnsignedInt(in.getShort())];
                in.get(contact);
                writes.add(new ContactWrite(new String(contact, StandardCharsets.UTF_8), in.getLong(), in.getLong()));
            }
            if (in.hasRemaining()) {
                throw new MalformedBindingException(in.remaining() + " bytes after a record");
            }
            String aor;
            BindingSet set = null;
            if (removedUntil != 0) {
                aor = new String(rest, StandardCharsets.UTF_8);
            } else {
                set = BindingCodec.decode(rest);
                aor = set.aor();
            }
            return new Record(aor, key != null ? key : Id.hash(aor), stamp, set, removedUntil, writtenAt, writes);
        } catch (BufferUnderflowException e) {
            throw new MalformedBindingException("a record cut short");
        }
    }
}
