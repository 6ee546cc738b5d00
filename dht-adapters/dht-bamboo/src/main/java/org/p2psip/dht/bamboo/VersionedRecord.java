package org.p2psip.dht.bamboo;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.bamboo.wire.Message.Applied;
import org.p2psip.dht.bamboo.storage.StoredValue;

/**
 * Compare-and-set of an AOR's record as the key's root runs it, inside one storage transaction
 * on the storage thread (so every CAS at a root is serialised). The key holds one live value,
 * the {@link BindingCodec} bytes of the stored {@link org.p2psip.dht.BindingSet}, whose version
 * is the one writers compare. Every change carries the secret hash of the overlay, and a value
 * put with another secret is never replaced. A put retried after its answer was lost finds
 * its own bytes stored and succeeds again (a retried remove finds no record and reports false,
 * as the contract says of removing an absent record). Pure functions; {@code done[0]} reports
 * success.
 */
final class VersionedRecord {

    private VersionedRecord() {
    }

    /** The next values of the key if its stored version is {@code expected}; null (no change) otherwise. */
    static List<StoredValue> swap(List<StoredValue> current, long expected, byte[] value, long expiresAt,
                                  byte[] secretHash, long now, boolean[] done) {
        StoredValue live = newestLive(current, now);
        if (live != null && Arrays.equals(live.value(), value) && sameSecret(live, secretHash)) {
            done[0] = true; // this very write is stored already: a retry whose first answer was lost
            return null;
        }
        if (version(live) != expected || !sameSecret(live, secretHash)) {
            return null;
        }
        done[0] = true;
        return List.of(new StoredValue(value, expiresAt, StoredValue.maxStamp(current) + 1, secretHash, false));
    }

    /**
     * The next values of the key after {@code ownerRules} applied {@code change} to its live record,
     * or null when it writes nothing (or the record was put under another secret: nothing
     * written, and no answer of the rules). {@code applied[0]} says what became of it, with the
     * bytes written or the live value's.
     */
    static List<StoredValue> apply(List<StoredValue> current, String aor, byte[] change, OwnerRules ownerRules,
                                   byte[] secretHash, long now, Applied[] applied) {
        StoredValue live = newestLive(current, now);
        byte[] left = live == null ? new byte[0] : live.value();
        applied[0] = new Applied(false, left, new byte[0]);
        if (!sameSecret(live, secretHash)) {
            return null;
        }
        BindingSet found = live == null ? BindingSet.absent(aor) : BindingCodec.decode(live.value()).liveAt(now);
        Updated decided = ownerRules.next(found, change, now);
        if (!decided.written()) {
            applied[0] = new Applied(false, left, decided.answer());
            return null;
        }
        BindingSet stored = decided.record().stored();
        byte[] written = BindingCodec.encode(stored);
        applied[0] = new Applied(true, written, decided.answer());
        return List.of(new StoredValue(written, stored.retainUntil(), StoredValue.maxStamp(current) + 1, secretHash, false));
    }

    /** The key's values with its record made a tombstone, if the stored version is {@code version}; else null. */
    static List<StoredValue> forget(List<StoredValue> current, long version, byte[] secretHash, long now, boolean[] done) {
        StoredValue live = newestLive(current, now);
        if (live == null || version(live) != version || !sameSecret(live, secretHash)) {
            return null;
        }
        done[0] = true;
        return List.of(live.asRemoved(StoredValue.maxStamp(current) + 1));
    }

    static StoredValue newestLive(List<StoredValue> values, long now) {
        StoredValue newest = null;
        for (StoredValue v : values) {
            if (v.isLiveAt(now) && (newest == null || v.stamp() > newest.stamp())) {
                newest = v;
            }
        }
        return newest;
    }

    private static long version(StoredValue live) {
        return live == null ? 0 : BindingCodec.decode(live.value()).version();
    }

    private static boolean sameSecret(StoredValue live, byte[] secretHash) {
        return live == null || MessageDigest.isEqual(live.secretHash(), secretHash);
    }
}
