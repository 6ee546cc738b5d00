package org.p2psip.front;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The nodes behind the front and which of them are up. A node is up from the moment anything is
 * heard from it (an answer to a probe or to a forwarded request) and down once nothing was heard
 * for the probe time-out. Starts with every node down until it answers.
 *
 * <p>Thread-safe: the list of nodes up is an immutable list swapped under the object's lock.
 */
final class Nodes {

    private static final Logger LOG = System.getLogger(Nodes.class.getName());

    private final List<Node> all;
    private final Map<String, Node> byProbeCallId;
    private volatile List<Node> up = List.of();

    Nodes(List<InetSocketAddress> addresses) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("the front needs at least one node");
        }
        this.all = java.util.stream.IntStream.range(0, addresses.size())
                .mapToObj(i -> new Node(i, addresses.get(i))).toList();
        this.byProbeCallId = all.stream().collect(Collectors.toUnmodifiableMap(Nodes::probeCallId, Function.identity()));
    }

    List<Node> all() {
        return all;
    }

    /** The nodes up now, in node order. */
    List<Node> up() {
        return up;
    }

    /** The Call-ID of the probes sent to {@code node}, by which their answers are recognised. */
    static String probeCallId(Node node) {
        return "p2psip-probe-" + node.index();
    }

    void probeAnswered(String callId) {
        Node node = byProbeCallId.get(callId);
        if (node != null) {
            heard(node);
        }
    }

    /** Something came from {@code node}: it is alive. */
    void heard(Node node) {
        node.heard(System.nanoTime());
        if (!node.up()) {
            setUp(node, true);
        }
    }

    /** Marks down the nodes not heard from within {@code timeoutNanos}; returns them. */
    List<Node> markSilent(long now, long timeoutNanos) {
        List<Node> silent = all.stream().filter(n -> n.up() && now - n.lastHeardNanos() > timeoutNanos).toList();
        silent.forEach(n -> setUp(n, false));
        return silent;
    }

    private synchronized void setUp(Node node, boolean value) {
        if (node.up() == value) {
            return;
        }
        node.up(value);
        up = all.stream().filter(Node::up).toList();
        LOG.log(Level.INFO, "{0} is {1}", node, value ? "up" : "down: no answer within the probe time-out");
    }
}
