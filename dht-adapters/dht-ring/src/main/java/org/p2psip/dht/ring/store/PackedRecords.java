package org.p2psip.dht.ring.store;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.p2psip.dht.ring.Id;

/**
 * The records a node holds, by key, each one {@link PackedRecord} array in an open-addressing
 * table (linear probing on the key's first 64 bits, which SHA-1 makes uniform; the whole key
 * is compared in the array). A slot costs 12 bytes (a long and a reference) where a HashMap
 * entry with a BigInteger key costs about 130. The table grows by half when it is two-thirds
 * full. Not thread-safe: the node's loop owns it.
 */
final class PackedRecords {

    private static final double MAX_LOAD = 2.0 / 3;

    private long[] prefixes;
    private byte[][] packed;
    private int size;
    /** Of {@link #size}, the removal markers: counted apart so that a node's record count means live records. */
    private int markers;

    PackedRecords() {
        allocate(1024);
    }

    int size() {
        return size;
    }

    /** How many of the records are removal markers ({@link PackedRecord#removedUntil}). */
    int markers() {
        return markers;
    }

    /** The packed record of {@code key}, or null. */
    byte[] get(Id key) {
        byte[] bytes = key.bytes();
        long prefix = prefix(bytes);
        for (int i = slot(prefix); packed[i] != null; i = next(i)) {
            if (prefixes[i] == prefix && PackedRecord.hasKey(packed[i], bytes)) {
                return packed[i];
            }
        }
        return null;
    }

    /** Stores {@code record} under its key, in place of what was there. */
    void put(byte[] record) {
        long prefix = prefix(record);
        int i = slot(prefix);
        for (; packed[i] != null; i = next(i)) {
            if (prefixes[i] == prefix && PackedRecord.hasKey(packed[i], record)) {
                markers += marker(record) - marker(packed[i]);
                packed[i] = record;
                return;
            }
        }
        prefixes[i] = prefix;
        packed[i] = record;
        markers += marker(record);
        if (++size > MAX_LOAD * packed.length) {
            grow();
        }
    }

    /** The table's slots, for walking it in slices ({@link #removeIf(int, int, Predicate)}). */
    int slots() {
        return packed.length;
    }

    /** Removes every record {@code forget} accepts; how many it removed. */
    int removeIf(Predicate<byte[]> forget) {
        return removeIf(0, packed.length, forget);
    }

    /**
     * Removes the records {@code forget} accepts among slots [from, to) (clipped to the table); how
     * many it removed. Deleting shifts later records back, so a record may be tested twice, and
     * after the table grew between two slices one may be missed until the next walk.
     */
    int removeIf(int from, int to, Predicate<byte[]> forget) {
        int removed = 0;
        for (int i = from; i < Math.min(to, packed.length); i++) {
            while (packed[i] != null && forget.test(packed[i])) {
                delete(i); // shifts a later record into slot i, which is then tested in turn
                removed++;
            }
        }
        return removed;
    }

    /** Every record whose key {@code which} accepts, unpacked; the others are not decoded. */
    List<Record> matching(Predicate<Id> which) {
        List<Record> found = new ArrayList<>();
        for (byte[] record : packed) {
            if (record != null && which.test(PackedRecord.key(record))) {
                found.add(PackedRecord.unpack(record));
            }
        }
        return found;
    }

    /**
     * Empties slot {@code hole} and moves back the records after it that probing would no longer
     * reach (backward-shift deletion: no tombstones, so lookups stay short however many records
     * come and go).
     */
    private void delete(int hole) {
        markers -= marker(packed[hole]);
        packed[hole] = null;
        size--;
        for (int i = next(hole); packed[i] != null; i = next(i)) {
            int home = slot(prefixes[i]);
            boolean reachable = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
            if (!reachable) {
                prefixes[hole] = prefixes[i];
                packed[hole] = packed[i];
                packed[i] = null;
                hole = i;
            }
        }
    }

    private static int marker(byte[] record) {
        return PackedRecord.removedUntil(record) != 0 ? 1 : 0;
    }

    private void grow() {
        long[] oldPrefixes = prefixes;
        byte[][] oldPacked = packed;
        allocate(oldPacked.length + oldPacked.length / 2);
        for (int i = 0; i < oldPacked.length; i++) {
            if (oldPacked[i] != null) {
                int j = slot(oldPrefixes[i]);
                while (packed[j] != null) {
                    j = next(j);
                }
                prefixes[j] = oldPrefixes[i];
                packed[j] = oldPacked[i];
            }
        }
    }

    private void allocate(int slots) {
        prefixes = new long[slots];
        packed = new byte[slots][];
    }

    /**
     * The home slot of a prefix: its top 32 bits, mixed, scaled to the table (any length, not only
     * powers of two). Mixed, since a table holds the keys of one place's range, whose top bits are
     * nearly all alike: unmixed, every key of a place fell into one 64th of the slots, and linear
     * probing walked one long cluster on every get and put (9 to 13 us a new put at 17,000 keys).
     */
    private int slot(long prefix) {
        long mixed = prefix * 0x9E3779B97F4A7C15L;
        return (int) (((mixed >>> 32) * packed.length) >>> 32);
    }

    private int next(int i) {
        return i + 1 == packed.length ? 0 : i + 1;
    }

    private static long prefix(byte[] keyFirst) {
        long prefix = 0;
        for (int i = 0; i < 8; i++) {
            prefix = (prefix << 8) | (keyFirst[i] & 0xFF);
        }
        return prefix;
    }
}
