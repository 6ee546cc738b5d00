package org.p2psip.dht.bamboo.storage;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.p2psip.dht.ring.Id;

/**
 * The OpenDHT put/get interface: a key holds a set of values, each with its own time to live and
 * the hash of a secret that alone can remove it. Implemented by one node's disk
 * ({@link JeStorage}) and by the whole overlay (the node routes each call to the key's root).
 * Implementations are thread-safe and never complete a stage on the caller's thread by waiting.
 */
public interface ValueStore {

    /** Adds {@code value} under {@code key}; putting a value already there extends its life to the later expiry. */
    CompletionStage<Void> put(Id key, byte[] value, Duration ttl, byte[] secretHash);

    /**
     * Up to {@code max} live values of {@code key} in a fixed order, starting after
     * {@code placemark} (empty: from the first); the page's placemark continues the listing.
     */
    CompletionStage<Page> get(Id key, int max, byte[] placemark);

    /** Removes the value whose SHA-1 is {@code valueHash}, if SHA-1({@code secret}) is the hash it was put with. */
    CompletionStage<Removal> remove(Id key, byte[] valueHash, byte[] secret);

    /** One value found by a get, with the time it has left. */
    record Found(byte[] value, Duration remaining) {
    }

    /** A page of values; an empty placemark means there are no more. */
    record Page(List<Found> values, byte[] placemark) {
        public boolean hasMore() {
            return placemark.length > 0;
        }
    }

    enum Removal {
        REMOVED,
        /** No live value with that hash under the key. */
        ABSENT,
        /** The secret's hash is not the one the value was put with: nothing was removed. */
        WRONG_SECRET
    }
}
