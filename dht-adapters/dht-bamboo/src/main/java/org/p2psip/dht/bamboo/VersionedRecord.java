package org.p2psip.dht.bamboo;

import java.security.MessageDigest;
import java.util.List;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.Updated;
import org.p2psip.dht.bamboo.storage.StoredValue;
import org.p2psip.dht.bamboo.wire.Message.Applied;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.store.Record;
import org.p2psip.dht.ring.store.RecordMerge;

/**
 * Compare-and-set of an AOR's record as the key's root runs it, inside one storage transaction
 * on the storage thread (so every CAS at a root is serialised). The key holds one value, the
 * AOR's {@link Record} ({@link StoredValue#of}), whose set's version is the one writers compare,
 * or its removal marker as a tombstone. Each write stamps the contacts it wrote with the root's
 * clock ({@link RecordMerge#written}), so that copies written by two roots (a split overlay's two
 * sides) merge contact by contact. A removal, and a binding dropped while live, are kept until the
 * record they changed would have expired: the tombstone's time. Every change carries the secret
 * hash of the overlay, and a value put with another secret is never replaced. A put retried after
 * its answer was lost finds its own set stored and succeeds again (a retried remove finds no
 * record and reports false, as the contract says of removing an absent record). A set that does
 * not decode, or a value under the key that is no record, fails the transaction. Pure functions;
 * {@code done[0]} reports success.
 */
final class VersionedRecord {

    private VersionedRecord() {
    }

    /**
     * The next values of the key if its stored version is {@code expected}; null (no change)
     * otherwise. {@code set} is the next set in {@link BindingCodec}'s encoding.
     */
    static List<StoredValue> swap(List<StoredValue> current, Id key, long expected, byte[] set,
                                  byte[] secretHash, long now, boolean[] done) {
        BindingSet next = BindingCodec.decode(set);
        if (!Id.hash(next.aor()).equals(key)) {
            throw new MalformedBindingException("a set of " + next.aor() + " under another key");
        }
        StoredValue live = newestLive(current, now);
        Record held = held(current, live, key);
        if (live != null && held.set().equals(next) && sameSecret(live, secretHash)) {
            done[0] = true; // this very write is stored already: a retry whose first answer was lost
            return null;
        }
        if (version(live, key) != expected || !sameSecret(live, secretHash)) {
            return null;
        }
        done[0] = true;
        return List.of(written(current, held, next, false, next.aor(), secretHash, now));
    }

    /**
     * The next values of the key after {@code ownerRules} applied {@code change} to its live record,
     * or null when it writes nothing (or the record was put under another secret: nothing
     * written, and no answer of the rules). {@code applied[0]} says what became of it, with the
     * value written or the live one's.
     */
    static List<StoredValue> apply(List<StoredValue> current, Id key, String aor, byte[] change, OwnerRules ownerRules,
                                   byte[] secretHash, long now, Applied[] applied) {
        StoredValue live = newestLive(current, now);
        byte[] left = live == null ? new byte[0] : live.value();
        applied[0] = new Applied(false, left, new byte[0]);
        if (!sameSecret(live, secretHash)) {
            return null;
        }
        Record held = held(current, live, key);
        BindingSet found = live == null ? BindingSet.absent(aor) : held.set().liveAt(now);
        Updated decided = ownerRules.next(found, change, now);
        if (!decided.written()) {
            applied[0] = new Applied(false, left, decided.answer());
            return null;
        }
        StoredValue written = written(current, held, decided.record().stored(), decided.clears(), aor, secretHash, now);
        applied[0] = new Applied(true, written.value(), decided.answer());
        return List.of(written);
    }

    /** The key's values with its record replaced by a removal marker, if the stored version is {@code version}; else null. */
    static List<StoredValue> forget(List<StoredValue> current, Id key, long version, byte[] secretHash, long now,
                                    boolean[] done) {
        StoredValue live = newestLive(current, now);
        if (live == null || version(live, key) != version || !sameSecret(live, secretHash)) {
            return null;
        }
        done[0] = true;
        Record held = held(current, live, key);
        return List.of(written(current, held, null, true, held.aor(), live.secretHash(), now));
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

    /** The root's write of {@code next} (null: the AOR removed) over {@code held}, its removals kept as long as held would have lived. */
    private static StoredValue written(List<StoredValue> current, Record held, BindingSet next, boolean clears, String aor,
                                       byte[] secretHash, long now) {
        long heldUntil = held == null ? now : held.isRemoved() ? held.removedUntil() : held.set().retainUntil();
        Record record = RecordMerge.written(held, next, clears, aor, StoredValue.maxStamp(current) + 1, now,
                Math.max(0, heldUntil - now));
        return StoredValue.of(record, secretHash);
    }

    /**
     * The record a write goes over: the live one, else the newest removal marker (whose removals
     * the write carries on); null for none.
     */
    private static Record held(List<StoredValue> current, StoredValue live, Id key) {
        if (live != null) {
            return recordOf(live, key);
        }
        Record newest = null;
        for (StoredValue v : current) {
            Record r = v.record(key);
            if (r != null && (newest == null || r.stamp() > newest.stamp())) {
                newest = r;
            }
        }
        return newest;
    }

    private static Record recordOf(StoredValue value, Id key) {
        Record record = value.record(key);
        if (record == null) {
            throw new MalformedBindingException("the value under " + key + " is not an AOR's record");
        }
        return record;
    }

    private static long version(StoredValue live, Id key) {
        return live == null ? 0 : recordOf(live, key).set().version();
    }

    private static boolean sameSecret(StoredValue live, byte[] secretHash) {
        return live == null || MessageDigest.isEqual(live.secretHash(), secretHash);
    }
}
