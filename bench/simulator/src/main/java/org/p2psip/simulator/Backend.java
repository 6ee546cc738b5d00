package org.p2psip.simulator;

/**
 * A DHT backend as the simulator runs it: real nodes over a simulated network, all on the
 * simulation's one loop in virtual time.
 */
interface Backend extends AutoCloseable {

    /** The prefix of the backend's counters ("chord"): its lookups count hops in PREFIX.lookup.hops.H. */
    String name();

    /** Starts a node at {@code address} that joins through {@code bootstrap} (empty: it founds the overlay). */
    Member start(String address, String bootstrap);

    /** Bytes every node has sent so far, with each message's transport overhead. */
    long bytesSent();

    @Override
    void close();
}
