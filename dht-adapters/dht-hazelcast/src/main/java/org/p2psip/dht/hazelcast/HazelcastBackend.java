package org.p2psip.dht.hazelcast;

import java.util.List;
import org.p2psip.config.Option;
import org.p2psip.dht.Backend;

/** The Hazelcast cluster, registered as {@code p2psip.dht=hazelcast}. */
public final class HazelcastBackend implements Backend {

    @Override
    public String name() {
        return "hazelcast";
    }

    @Override
    public List<Option<?>> options() {
        return HazelcastOptions.ALL;
    }

    @Override
    public String servlet() {
        return "org.p2psip.servlet.HazelcastSipServlet";
    }
}
