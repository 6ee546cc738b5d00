package org.p2psip.dht.bamboo.storage;

import java.util.Arrays;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.store.Record;
import org.p2psip.dht.ring.store.RecordCodec;

/**
 * One value under a key, as a node stores it: the bytes, when they expire (absolute ms), the
 * SHA-1 of the secret that may remove them, and the stamp the key's root gave the write (replicas
 * keep the highest stamp they have seen, so late or repeated copies never undo a newer write).
 * A removed value stays as a tombstone ({@code removed}) until it would have expired, as in
 * OpenDHT, so that a replica that missed the removal cannot bring the value back.
 * An AOR's record is one such value: the ring's {@link Record} in {@link RecordCodec}'s encoding
 * ({@link #of}), a removal marker as a tombstone, its stamp the value's.
 * Immutable; the arrays are not copied and must not be changed.
 */
public record StoredValue(byte[] value, long expiresAt, long stamp, byte[] secretHash, boolean removed) {

    public StoredValue {
        if (secretHash.length != Id.BYTES) {
            throw new IllegalArgumentException("a secret hash is SHA-1, " + Id.BYTES + " bytes");
        }
    }

    /** {@code record} as a value put with {@code secretHash}: kept until the record may be forgotten, a marker as a tombstone. */
    public static StoredValue of(Record record, byte[] secretHash) {
        long expiresAt = record.isRemoved() ? record.removedUntil() : record.set().retainUntil();
        return new StoredValue(RecordCodec.encode(record), expiresAt, record.stamp(), secretHash, record.isRemoved());
    }

    /**
     * The AOR record this value holds under {@code key}, or null when it holds none: bytes of
     * another format (an OpenDHT client's value), a record of another key, or a record whose
     * removal is not this value's (a live record removed by OpenDHT's remove).
     */
    public Record record(Id key) {
        try {
            Record record = RecordCodec.decode(value);
            return record.key().equals(key) && record.isRemoved() == removed ? record : null;
        } catch (MalformedBindingException notARecord) {
            return null;
        }
    }

    /** The SHA-1 of the value: what OpenDHT's remove names a value by. */
    public byte[] valueHash() {
        return Id.sha1(value);
    }

    /** The highest stamp among {@code values}, 0 for none: the key's state as replicas compare it. */
    public static long maxStamp(java.util.List<StoredValue> values) {
        long max = 0;
        for (StoredValue v : values) {
            max = Math.max(max, v.stamp());
        }
        return max;
    }

    /** Whether a get returns it: not removed and not expired. */
    public boolean isLiveAt(long nowMillis) {
        return !removed && expiresAt > nowMillis;
    }

    /** This value as a tombstone with {@code newStamp}: kept until its expiry, never returned. */
    public StoredValue asRemoved(long newStamp) {
        return new StoredValue(value, expiresAt, newStamp, secretHash, true);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredValue v && expiresAt == v.expiresAt && stamp == v.stamp && removed == v.removed
                && Arrays.equals(value, v.value) && Arrays.equals(secretHash, v.secretHash);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(value) * 31 + Long.hashCode(stamp);
    }

    @Override
    public String toString() {
        return "StoredValue(" + value.length + " bytes, expiresAt=" + expiresAt + ", stamp=" + stamp + (removed ? ", removed" : "") + ")";
    }
}
