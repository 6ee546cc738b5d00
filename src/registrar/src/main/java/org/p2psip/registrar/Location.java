package org.p2psip.registrar;

import java.util.List;
import org.p2psip.dht.Binding;

/** Where a request for an AOR goes (RFC 3261 §16.5), once the DHT answered. */
public sealed interface Location {

    /** The AOR's live bindings, highest q first. */
    record Found(List<Binding> byPreference) implements Location {
    }

    /** Never registered, or forgotten after its retention: 404. */
    record Unknown() implements Location {
    }

    /** Registered once, but no binding is live now: 480. */
    record Unavailable() implements Location {
    }
}
