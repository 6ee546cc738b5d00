package org.p2psip.dht.bamboo.storage;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.p2psip.dht.ring.Id;

/**
 * How a value lies in the JE databases. Big-endian, so JE's byte order sorts as the numbers do.
 *
 * <pre>
 * values    key  = key-id:20  value-sha1:20           (a key's values are adjacent)
 *           data = format:u8 (=1)  flags:u8 (bit 0: removed)  expiresAt:i64  stamp:i64
 *                  secret-sha1:20  value:rest
 * by-expiry key  = expiresAt:i64  (sorted duplicates; a secondary index of "values")
 * </pre>
 */
final class RecordLayout {

    static final int FORMAT = 1;
    static final int KEY_BYTES = 2 * Id.BYTES;
    private static final int HEADER = 2 + 8 + 8 + Id.BYTES;

    private RecordLayout() {
    }

    static byte[] key(Id key, byte[] valueHash) {
        return ByteBuffer.allocate(KEY_BYTES).put(key.bytes()).put(valueHash).array();
    }

    static Id keyId(byte[] recordKey) {
        return Id.of(Arrays.copyOf(recordKey, Id.BYTES));
    }

    static boolean hasPrefix(byte[] recordKey, byte[] keyBytes) {
        return recordKey.length == KEY_BYTES && Arrays.equals(recordKey, 0, Id.BYTES, keyBytes, 0, Id.BYTES);
    }

    static byte[] data(StoredValue v) {
        return ByteBuffer.allocate(HEADER + v.value().length).put((byte) FORMAT).put((byte) (v.removed() ? 1 : 0))
                .putLong(v.expiresAt()).putLong(v.stamp()).put(v.secretHash()).put(v.value()).array();
    }

    static StoredValue value(byte[] data) {
        var in = ByteBuffer.wrap(data);
        int format = in.get() & 0xFF;
        if (format != FORMAT) {
            throw new IllegalStateException("stored record of format " + format + ", this node reads " + FORMAT);
        }
        boolean removed = (in.get() & 1) != 0;
        long expiresAt = in.getLong();
        long stamp = in.getLong();
        byte[] secretHash = new byte[Id.BYTES];
        in.get(secretHash);
        byte[] value = new byte[in.remaining()];
        in.get(value);
        return new StoredValue(value, expiresAt, stamp, secretHash, removed);
    }

    /** The expiry index's key of a record: its expiry, read from the data without decoding the rest. */
    static byte[] expiryKey(byte[] data) {
        return Arrays.copyOfRange(data, 2, 10);
    }

    static byte[] expiryKey(long expiresAt) {
        return ByteBuffer.allocate(8).putLong(expiresAt).array();
    }

    static long expiry(byte[] expiryKey) {
        return ByteBuffer.wrap(expiryKey).getLong();
    }
}
