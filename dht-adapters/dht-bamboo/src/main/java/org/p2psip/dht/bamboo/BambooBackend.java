package org.p2psip.dht.bamboo;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.p2psip.config.Option;
import org.p2psip.dht.Backend;
import org.p2psip.overlay.OverlayOptions;

/** The Bamboo overlay, registered as {@code p2psip.dht=bamboo}; its options and the overlay transport's. */
public final class BambooBackend implements Backend {

    @Override
    public String name() {
        return "bamboo";
    }

    @Override
    public List<Option<?>> options() {
        List<Option<?>> options = new ArrayList<>(BambooOptions.ALL);
        options.addAll(OverlayOptions.ALL);
        return options;
    }

    @Override
    public String servlet() {
        return "org.p2psip.servlet.BambooSipServlet";
    }

    /** Each node's share of the bindings is in Berkeley DB JE under {@code p2psip.data.dir}. */
    @Override
    public Set<Trait> traits() {
        return Set.of(Trait.ON_DISK);
    }
}
