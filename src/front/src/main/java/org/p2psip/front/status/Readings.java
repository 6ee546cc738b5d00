package org.p2psip.front.status;

import java.net.InetSocketAddress;
import java.util.List;
import org.p2psip.front.nodes.Node;

/**
 * What the status page reads from a running front, at each scrape or page: the status page sees
 * the front through this alone, so that it depends on no part of the forwarding. Implementations
 * are thread-safe and never wait.
 */
public interface Readings {

    /** The address the front listens on. */
    InetSocketAddress address();

    FrontStats stats();

    /** The nodes, in the order configured. */
    List<Node> nodes();

    /** Call-IDs remembered at the moment. */
    int affinityEntries();

    /** Clients' TCP and TLS connections open at the moment. */
    int openConnections();

    /** The share of new calls whose state the front keeps: 0 stateless, 1 stateful. */
    double stateFraction();

    /** Calls and in-dialog requests whose state the front keeps at the moment. */
    int keptEntries();
}
