package org.p2psip.dht.bamboo.storage;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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

    /** {@code copy} (its unexpired part) if its stamp is newer than {@code current}'s, else null: nothing to take. */
    static List<StoredValue> newer(List<StoredValue> copy, List<StoredValue> current, long now) {
        List<StoredValue> live = copy.stream().filter(v -> v.expiresAt() > now).toList();
        if (live.isEmpty() || StoredValue.maxStamp(live) <= StoredValue.maxStamp(current)) {
            return null;
        }
        return live;
    }
}
