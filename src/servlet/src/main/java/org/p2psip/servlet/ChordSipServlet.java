package org.p2psip.servlet;

import java.time.Clock;
import org.p2psip.config.Config;
import org.p2psip.dht.Dht;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.chord.ChordDht;

/** A node on a Chord ring (dht-adapters/dht-chord): bindings shared by every node of the ring. */
public class ChordSipServlet extends P2PSipServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected Dht createDht(Config config, Clock clock, OwnerRules ownerRules) {
        return ChordDht.start(config, clock, ownerRules);
    }
}
