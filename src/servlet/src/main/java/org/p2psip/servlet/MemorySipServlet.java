package org.p2psip.servlet;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.p2psip.config.Config;
import org.p2psip.config.Option;
import org.p2psip.dht.Dht;
import org.p2psip.dht.Updater;
import org.p2psip.dht.memory.MemoryDht;

/** A node whose bindings stay in its own memory: nodes running it share nothing. */
public class MemorySipServlet extends P2PSipServlet {

    private static final long serialVersionUID = 1L;

    static final Option<Duration> SWEEP_INTERVAL = Option.duration("p2psip.memory.sweep-interval", Duration.ofMinutes(1), "10s",
            "How often the in-memory backend forgets records past their retention.");

    @Override
    protected String backendName() {
        return "memory";
    }

    @Override
    protected Dht createDht(Config config, Clock clock, Updater updater) {
        return new MemoryDht(clock, config.get(SWEEP_INTERVAL), updater);
    }

    @Override
    protected List<Option<?>> backendOptions() {
        return List.of(SWEEP_INTERVAL);
    }

    @Override
    protected boolean sharesStore() {
        return false; // each node alone: its warm-up warms only itself
    }
}
