package org.p2psip.dht.bryan;

import java.time.Clock;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.p2psip.config.Config;
import org.p2psip.dht.Counters;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.ring.NodeThread;

/**
 * The places inside each peer the tests start: what they read of a peer's tables, stores and view
 * (on its loop, where those live). The service itself shows none of them. Thread-safe.
 */
final class PeerInsides {

    private static final Map<BryanDht, PeerPlaces> PLACES = Collections.synchronizedMap(new WeakHashMap<>());

    private PeerInsides() {
    }

    /** As {@link BryanDht#start(PeerLink, Config, Clock, OwnerRules)}, its places kept for the test. */
    static BryanDht start(PeerLink link, Config config, Clock clock, OwnerRules ownerRules) {
        var counters = new Counters();
        return kept(new PeerPlaces(link, BryanSettings.from(config), clock, counters, ownerRules), config, counters,
                ownerRules != OwnerRules.NONE);
    }

    /** As {@link BryanDht#start(PeerLink, Config, Clock, NodeThread)}, its places kept for the test. */
    static BryanDht start(PeerLink link, Config config, Clock clock, NodeThread loop) {
        var counters = new Counters();
        return kept(new PeerPlaces(link, BryanSettings.from(config), clock, counters, loop), config, counters, false);
    }

    private static BryanDht kept(PeerPlaces places, Config config, Counters counters, boolean appliesChanges) {
        BryanDht dht = BryanDht.start(places, config, counters, appliesChanges);
        PLACES.put(dht, places);
        return dht;
    }

    /** The first place of {@code dht}, a peer a test started here. */
    static BryanPeer peer(BryanDht dht) {
        return places(dht).get(0);
    }

    /** Every place of {@code dht}, the first first. */
    static List<BryanPeer> places(BryanDht dht) {
        PeerPlaces places = PLACES.get(dht);
        if (places == null) {
            throw new IllegalArgumentException(dht.self() + " was not started through PeerInsides");
        }
        return places.places();
    }
}
