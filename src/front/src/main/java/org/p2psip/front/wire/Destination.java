package org.p2psip.front.wire;

import java.net.InetSocketAddress;
import org.p2psip.front.nodes.Node;

/**
 * Where the forwarder's bytes go out: to a node, or back to a client over UDP or over the TCP or
 * TLS connection the client came on. Implementations are thread-safe and never wait.
 */
public interface Destination {

    /** Connection id meaning "the client came over UDP". */
    long UDP = 0;

    void toNode(Node node, byte[] message);

    /** Sends to a client: over TCP connection {@code connection} if not {@link #UDP}, else over UDP to {@code address}. */
    void toClient(long connection, InetSocketAddress address, byte[] message);

    /**
     * The transport an answer to a client on {@code connection} goes by, as its Via must name it:
     * "UDP", "TCP" or "TLS"; "TCP" for a connection that has closed (its answer will be dropped).
     */
    String transport(long connection);

    /** Whether TCP or TLS connection {@code connection} is still open. */
    boolean open(long connection);
}
