package org.p2psip.dht.ring.store;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.ring.NodeRef;

/**
 * How a backend carries records to another node in its own messages: Chord in STORE frames,
 * Bryan in copy REGISTERs' bodies.
 */
public interface RecordLink {

    /** One message's content with the first of {@code records} (at least one), and how many it carries. */
    Cut cut(List<Record> records);

    /** Sends one message made by {@link #cut} to {@code target}; completes once it took them, fails when it did not. */
    CompletableFuture<?> send(NodeRef target, byte[] message);

    /** A message's content and the count of records in it. Immutable. */
    record Cut(byte[] message, int count) {
        public Cut {
            if (count < 1) {
                throw new IllegalArgumentException("a message carries at least one record, not " + count);
            }
        }
    }
}
