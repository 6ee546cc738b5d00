package org.p2psip.dht.bamboo.storage;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.store.Record;
import org.p2psip.dht.ring.store.RecordMerge;

/** The rules that turn one key's values into the next: pure functions, run on the storage thread. */
final class StoredValues {

    private StoredValues() {
    }

    /** The live value whose SHA-1 is {@code valueHash}, or null. */
    static StoredValue find(List<StoredValue> values, byte[] valueHash, long now) {
        for (StoredValue v : values) {
            if (v.isLiveAt(now) && MessageDigest.isEqual(v.valueHash(), valueHash)) {
                return v;
            }
        }
        return null;
    }

    /**
     * OpenDHT's put: the value joins the key's set with a new stamp. The same value put again
     * lives until the later expiry and keeps the secret it was first put with, so a third party
     * cannot take over a value by putting it again under a secret of its own.
     */
    static List<StoredValue> withPut(List<StoredValue> current, byte[] value, long expiresAt, byte[] secretHash) {
        long stamp = StoredValue.maxStamp(current) + 1;
        List<StoredValue> next = new ArrayList<>(current.size() + 1);
        StoredValue added = new StoredValue(value, expiresAt, stamp, secretHash, false);
        for (StoredValue v : current) {
            if (Arrays.equals(v.value(), value)) {
                if (!v.removed()) {
                    added = new StoredValue(value, Math.max(expiresAt, v.expiresAt()), stamp, v.secretHash(), false);
                }
            } else {
                next.add(v);
            }
        }
        next.add(added);
        return next;
    }

    /**
     * What a node holding {@code current} under {@code key} keeps when another node sends it
     * {@code copy}; null when the copy adds nothing. An AOR's record held on both sides (one
     * value each, put with the same secret) merges contact by contact ({@link RecordMerge}), so
     * that the copies of the two sides of a split overlay, each written by its own root, keep
     * every binding either side acknowledged: the held record, the copy, or a record of both with
     * a stamp past either's. Any other copy (its unexpired part) is taken whole if its stamp is
     * newer than every held one.
     */
    static List<StoredValue> merge(Id key, List<StoredValue> copy, List<StoredValue> current, long now) {
        List<StoredValue> live = copy.stream().filter(v -> v.expiresAt() > now).toList();
        if (live.isEmpty()) {
            return null;
        }
        if (live.size() == 1 && current.size() == 1
                && MessageDigest.isEqual(live.get(0).secretHash(), current.get(0).secretHash())) {
            Record held = current.get(0).record(key);
            Record copied = live.get(0).record(key);
            if (held != null && copied != null) {
                Record merged = RecordMerge.merge(held, copied, now);
                return merged == held ? null : merged == copied ? live : List.of(StoredValue.of(merged, current.get(0).secretHash()));
            }
        }
        return StoredValue.maxStamp(live) > StoredValue.maxStamp(current) ? live : null;
    }
}
