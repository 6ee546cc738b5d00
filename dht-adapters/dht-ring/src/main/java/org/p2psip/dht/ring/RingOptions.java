package org.p2psip.dht.ring;

import java.util.List;
import org.p2psip.config.Option;

/** The options of the ring core itself, the same for every backend that keeps the ring (README, "Configuration"). */
public final class RingOptions {

    public static final Option<Integer> ONE_HOP_MAX_NODES = Option.integer("p2psip.ring.one-hop.max-nodes", 64,
            "0", "Physical nodes at most for which every node keeps a view of the whole ring, by gossip, and sends an operation straight to its key's owner (one hop); above it, or at 0, an operation finds the owner by the iterative lookup.");

    public static final List<Option<?>> ALL = List.of(ONE_HOP_MAX_NODES);

    private RingOptions() {
    }
}
