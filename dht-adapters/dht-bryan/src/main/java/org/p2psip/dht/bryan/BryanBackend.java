package org.p2psip.dht.bryan;

import java.util.List;
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
}
