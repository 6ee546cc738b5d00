package org.p2psip.servlet;

import java.time.Clock;
import org.p2psip.config.Config;
import org.p2psip.dht.Dht;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.hazelcast.HazelcastDht;

/**
 * A member of a Hazelcast cluster (dht-adapters/dht-hazelcast): bindings in a partitioned map
 * with synchronous backups. Starting blocks until the member joined, which init allows.
 */
public class HazelcastSipServlet extends P2PSipServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected Dht createDht(Config config, Clock clock, OwnerRules ownerRules) {
        return HazelcastDht.start(config, clock, ownerRules);
    }
}
