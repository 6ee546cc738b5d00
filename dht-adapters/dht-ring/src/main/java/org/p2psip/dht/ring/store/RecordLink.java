package org.p2psip.dht.ring.store;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.ring.NodeRef;

/**
 * How a backend carries records to another node in its own messages: Chord in STORE frames,
 * Bryan in copy REGISTERs.
 */
public interface RecordLink {

    /**
     * Sends the first of {@code copies}, as many as one message carries (at least one), to
     * {@code target}. Completes with how many it carried once the target took them; fails when the
     * target did not answer or refused them.
     */
    CompletableFuture<Integer> send(NodeRef target, List<Record> copies);
}
