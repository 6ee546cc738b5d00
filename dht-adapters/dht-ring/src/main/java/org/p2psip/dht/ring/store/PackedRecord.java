package org.p2psip.dht.ring.store;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.p2psip.dht.ring.Id;

/**
 * A {@link Record} as one byte array, the form a node keeps it in: a node holds millions, and as
 * objects (a set, its bindings, their strings, a BigInteger key) one costs about three times its
 * encoding. The stamp, the version and the retention are read in place, so that a put's version
 * check and the sweep decode nothing. Stateless.
 *
 * <pre>
 * packed = key:20 record (in {@link RecordCodec}'s encoding)
 * </pre>
 */
final class PackedRecord {

    static final int KEY = 0;
    static final int STAMP = Id.BYTES + RecordCodec.STAMP;
    static final int REMOVED_UNTIL = Id.BYTES + RecordCodec.REMOVED_UNTIL;
    static final int REST = Id.BYTES + RecordCodec.REST;
    /** In the set's encoding: format:u8, aor length:u16, aor, version:u64, retainUntil:i64. */
    private static final int AOR_LENGTH = REST + 1;

    private PackedRecord() {
    }

    static byte[] pack(Record record) {
        return RecordCodec.encode(record, record.key().bytes());
    }

    static Id key(byte[] packed) {
        return Id.of(Arrays.copyOfRange(packed, KEY, KEY + Id.BYTES));
    }

    static Record unpack(byte[] packed) {
        return RecordCodec.decode(packed, Id.BYTES, key(packed));
    }

    /** Whether {@code packed} is the record of {@code key}: a key's bytes, or another packed record (whose key comes first). */
    static boolean hasKey(byte[] packed, byte[] key) {
        return Arrays.equals(packed, KEY, KEY + Id.BYTES, key, 0, Id.BYTES);
    }

    static long stamp(byte[] packed) {
        return ByteBuffer.wrap(packed).getLong(STAMP);
    }

    static long removedUntil(byte[] packed) {
        return ByteBuffer.wrap(packed).getLong(REMOVED_UNTIL);
    }

    /** The stored set's version, 0 for a removal marker. */
    static long version(byte[] packed) {
        return removedUntil(packed) != 0 ? 0 : ByteBuffer.wrap(packed).getLong(afterAor(packed));
    }

    /** Whether the sweep may forget it at {@code now}: {@link Record#forgettableAt}, read in place. */
    static boolean forgettableAt(byte[] packed, long now) {
        long removedUntil = removedUntil(packed);
        if (removedUntil != 0) {
            return removedUntil <= now;
        }
        return ByteBuffer.wrap(packed).getLong(afterAor(packed) + 8) <= now;
    }

    /** Whether a reader at {@code now} sees a set (not removed, retention not passed): {@link Record#visibleAt}. */
    static boolean visibleAt(byte[] packed, long now) {
        return removedUntil(packed) == 0 && !forgettableAt(packed, now);
    }

    private static int afterAor(byte[] packed) {
        int length = ((packed[AOR_LENGTH] & 0xFF) << 8) | (packed[AOR_LENGTH + 1] & 0xFF);
        return AOR_LENGTH + 2 + length;
    }
}
