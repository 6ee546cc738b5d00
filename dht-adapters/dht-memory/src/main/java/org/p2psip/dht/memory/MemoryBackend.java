package org.p2psip.dht.memory;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.p2psip.config.Option;
import org.p2psip.dht.Backend;

/** Each node's bindings in its own memory, registered as {@code p2psip.dht=memory}. */
public final class MemoryBackend implements Backend {

    /** Documented with the servlet's options (src/README.md), where a node's own options are. */
    public static final Option<Duration> SWEEP_INTERVAL = Option.duration("p2psip.memory.sweep-interval",
            Duration.ofMinutes(1), "10s", "How often the in-memory backend forgets records past their retention.");

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public List<Option<?>> options() {
        return List.of(SWEEP_INTERVAL);
    }

    @Override
    public String servlet() {
        return "org.p2psip.servlet.MemorySipServlet";
    }

    /** Each node's bindings are its own: nodes share nothing, and each warms up only itself. */
    @Override
    public Set<Trait> traits() {
        return Set.of(Trait.ALONE);
    }
}
