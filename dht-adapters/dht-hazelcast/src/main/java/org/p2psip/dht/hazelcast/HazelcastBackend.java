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

    /**
     * Hazelcast reaches JDK internals for speed, and without these (its own list, from the warning
     * it logs at every start) warns and runs slower.
     */
    @Override
    public List<String> jvmArguments() {
        return List.of("--add-modules", "java.se", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
                "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.management/sun.management=ALL-UNNAMED",
                "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");
    }
}
