package org.p2psip.registrar;

import org.p2psip.dht.BindingSet;

/** What the registrar rules decide for one REGISTER against the AOR's current bindings. */
public sealed interface Outcome {

    /** Write {@code next} (carrying the version read) and answer 200 with its bindings. */
    record Store(BindingSet next) implements Outcome {
    }

    /** Change nothing and answer 200 with the current bindings (a query, RFC 3261 §10.2.3). */
    record Unchanged(BindingSet current) implements Outcome {
    }

    /** Change nothing and answer with the rejection's status; {@code minExpires} for a 423. */
    record Refused(Rejection rejection, long minExpires) implements Outcome {
    }
}
