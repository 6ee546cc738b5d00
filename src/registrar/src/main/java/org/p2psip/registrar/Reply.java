package org.p2psip.registrar;

import java.util.List;
import java.util.Map;
import org.p2psip.dht.Binding;

/** The answer to a REGISTER once the DHT work is done. */
public sealed interface Reply {

    /**
     * 200 OK listing every current binding of the AOR, with its remaining time from {@code now},
     * and for those in {@code gruus} their GRUUs (only when the REGISTER said Supported: gruu).
     */
    record Registered(List<Binding> bindings, long now, Map<Binding, Gruus.Issued> gruus) implements Reply {

        public Registered {
            bindings = List.copyOf(bindings);
            gruus = Map.copyOf(gruus);
        }

        public Registered(List<Binding> bindings, long now) {
            this(bindings, now, Map.of());
        }
    }

    /** A refusal that changed nothing. */
    record Refused(Rejection rejection, long minExpires) implements Reply {
    }
}
