package org.p2psip.dht.chord;

import java.util.ArrayList;
import java.util.List;
import org.p2psip.config.Option;
import org.p2psip.dht.Backend;
import org.p2psip.dht.ring.RingOptions;
import org.p2psip.overlay.OverlayOptions;

/** The Chord ring, registered as {@code p2psip.dht=chord}; its options and the overlay transport's. */
public final class ChordBackend implements Backend {

    @Override
    public String name() {
        return "chord";
    }

    @Override
    public List<Option<?>> options() {
        List<Option<?>> options = new ArrayList<>(ChordOptions.ALL);
        options.addAll(RingOptions.ALL);
        options.addAll(OverlayOptions.ALL);
        return options;
    }

    @Override
    public String servlet() {
        return "org.p2psip.servlet.ChordSipServlet";
    }
}
