package org.p2psip.servlet;

import java.time.Clock;
import org.p2psip.config.Config;
import org.p2psip.dht.Dht;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.bamboo.BambooDht;

/**
 * A node of a Bamboo overlay (dht-adapters/dht-bamboo): Pastry-style routing, each node's share
 * of the bindings in Berkeley DB JE under {@code p2psip.data.dir}.
 */
public class BambooSipServlet extends P2PSipServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected Dht createDht(Config config, Clock clock, OwnerRules ownerRules) {
        return BambooDht.start(config, clock, ownerRules);
    }
}
