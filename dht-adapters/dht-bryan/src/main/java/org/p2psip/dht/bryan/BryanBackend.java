package org.p2psip.dht.bryan;

import java.util.List;
import java.util.Set;
import org.p2psip.config.Option;
import org.p2psip.dht.Backend;

/** The SIP-based DHT after Bryan's draft, registered as {@code p2psip.dht=bryan}. */
public final class BryanBackend implements Backend {

    @Override
    public String name() {
        return "bryan";
    }

    @Override
    public List<Option<?>> options() {
        return BryanOptions.ALL;
    }

    @Override
    public String servlet() {
        return "org.p2psip.servlet.BryanSipServlet";
    }

    /** The peers keep their ring with SIP REGISTERs through the node's own servlet, which the container holds until init returns. */
    @Override
    public Set<Trait> traits() {
        return Set.of(Trait.JOINS_AFTER_INIT);
    }
}
