package org.p2psip.servlet;

import java.time.Clock;
import org.p2psip.config.Config;
import org.p2psip.dht.Dht;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.memory.MemoryBackend;
import org.p2psip.dht.memory.MemoryDht;

/** A node whose bindings stay in its own memory: nodes running it share nothing. */
public class MemorySipServlet extends P2PSipServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected Dht createDht(Config config, Clock clock, OwnerRules ownerRules) {
        return new MemoryDht(clock, config.get(MemoryBackend.SWEEP_INTERVAL), ownerRules);
    }
}
