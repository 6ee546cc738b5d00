package org.p2psip.dht.hazelcast;

import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;

/**
 * How a map value (the {@link BindingCodec} bytes of a stored {@link BindingSet}) reads at a given
 * time. Both sides use it: the entry processors on the partition's owner and {@link HazelcastDht}
 * on the reading node, so "past its retention" means one thing. Stateless; thread-safe.
 */
final class StoredRecord {

    private StoredRecord() {
    }

    /** The record as a reader sees it at {@code now}: absent if none or past its retention, else its live bindings. */
    static BindingSet readAt(String aor, byte[] value, long now) {
        if (value == null) {
            return BindingSet.absent(aor);
        }
        BindingSet stored = BindingCodec.decode(value);
        return stored.retainUntil() <= now ? BindingSet.absent(aor) : stored.liveAt(now);
    }

    /** The version a writer must carry at {@code now}: 0 for no record or one past its retention. */
    static long versionAt(byte[] value, long now) {
        if (value == null) {
            return 0;
        }
        BindingSet stored = BindingCodec.decode(value);
        return stored.retainUntil() <= now ? 0 : stored.version();
    }
}
