package org.p2psip.registrar;

import java.util.List;
import org.p2psip.dht.Binding;

/** The answer to a REGISTER once the DHT work is done. */
public sealed interface Reply {

    /** 200 OK listing every current binding of the AOR, with its remaining time from {@code now}. */
    record Registered(List<Binding> bindings, long now) implements Reply {
    }

    /** A refusal that changed nothing. */
    record Refused(Rejection rejection, long minExpires) implements Reply {
    }
}
