package org.p2psip.servlet;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.p2psip.config.Config;
import org.p2psip.config.Option;
import org.p2psip.dht.Dht;
import org.p2psip.dht.Updater;
import org.p2psip.dht.bamboo.BambooDht;
import org.p2psip.dht.bamboo.BambooOptions;
import org.p2psip.overlay.OverlayOptions;

/**
 * A node of a Bamboo overlay (dht-adapters/dht-bamboo): Pastry-style routing, each node's share
 * of the bindings in Berkeley DB JE under {@code p2psip.data.dir}.
 */
public class BambooSipServlet extends P2PSipServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String backendName() {
        return "bamboo";
    }

    @Override
    protected Dht createDht(Config config, Clock clock, Updater updater) {
        return BambooDht.start(config, clock, updater);
    }

    @Override
    protected List<Option<?>> backendOptions() {
        List<Option<?>> options = new ArrayList<>(BambooOptions.ALL);
        options.addAll(OverlayOptions.ALL);
        return options;
    }
}
