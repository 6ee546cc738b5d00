package org.p2psip.servlet;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.p2psip.config.Config;
import org.p2psip.config.Option;
import org.p2psip.dht.Dht;
import org.p2psip.dht.Updater;
import org.p2psip.dht.chord.ChordDht;
import org.p2psip.dht.chord.ChordOptions;
import org.p2psip.overlay.OverlayOptions;

/** A node on a Chord ring (dht-adapters/dht-chord): bindings shared by every node of the ring. */
public class ChordSipServlet extends P2PSipServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String backendName() {
        return "chord";
    }

    @Override
    protected Dht createDht(Config config, Clock clock, Updater updater) {
        return ChordDht.start(config, clock, updater);
    }

    @Override
    protected List<Option<?>> backendOptions() {
        List<Option<?>> options = new ArrayList<>(ChordOptions.ALL);
        options.addAll(OverlayOptions.ALL);
        return options;
    }
}
