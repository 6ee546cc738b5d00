package org.p2psip.front.nodes;

import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The nodes behind the front and which of them are up. A node is up from the moment anything is
 * heard from it (an answer to a probe or to a forwarded request) and down once nothing was heard
 * for the probe time-out. Starts with every node down until it answers. The nodes may be changed
 * while the front runs ({@link #set}): a node added is down until it answers, like the first ones.
 *
 * <p>Thread-safe: the lists of nodes and of nodes up are immutable lists swapped under the
 * object's lock.
 */
public final class Nodes {

    private static final Logger LOG = System.getLogger(Nodes.class.getName());

    private volatile List<Node> all = List.of();
    private final Map<String, Node> byProbeCallId = new ConcurrentHashMap<>();
    private volatile List<Node> up = List.of();
    /** The index of the next node added: a node's index is never another's, even after it left. */
    private int nextIndex;

    public Nodes(List<InetSocketAddress> addresses) {
        set(addresses);
    }

    /**
     * Makes {@code addresses} the nodes, in that order: a node listed before keeps its state and
     * counters, a node no longer listed is taken down and gets nothing new (what it was sent still
     * has its answers relayed), a new one is down until it answers a probe.
     */
    public synchronized void set(List<InetSocketAddress> addresses) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("the front needs at least one node");
        }
        List<Node> before = all;
        List<Node> next = new ArrayList<>();
        for (InetSocketAddress address : new LinkedHashSet<>(addresses)) {
            next.add(before.stream().filter(n -> n.address().equals(address)).findFirst()
                    .orElseGet(() -> new Node(nextIndex++, address)));
        }
        all = List.copyOf(next);
        for (Node gone : before) {
            if (!all.contains(gone)) {
                byProbeCallId.remove(probeCallId(gone));
                setUp(gone, false, "removed from the nodes");
            }
        }
        all.forEach(n -> byProbeCallId.put(probeCallId(n), n));
        up = all.stream().filter(Node::up).toList();
    }

    public List<Node> all() {
        return all;
    }

    /** The nodes up now, in node order. */
    public List<Node> up() {
        return up;
    }

    /** The Call-ID of the probes sent to {@code node}, by which their answers are recognised. */
    public static String probeCallId(Node node) {
        return "p2psip-probe-" + node.index();
    }

    /**
     * A node's answer to a probe: 2xx, it serves; any other (503 while it starts, warms up or
     * stops), it is alive but takes nothing new until a probe is answered 2xx again. A node that
     * sheds load still answers its probes 2xx (its intake lets them through).
     */
    public void probeAnswered(String callId, int status) {
        probeAnswered(callId, status, Double.NaN);
    }

    /** As {@link #probeAnswered(String, int)}, with the load the answer reported ({@link NodeLoad}; NaN: none). */
    public void probeAnswered(String callId, int status, double load) {
        Node node = byProbeCallId.get(callId);
        if (node == null) {
            return;
        }
        if (!Double.isNaN(load)) {
            node.load(load);
        }
        node.ready(status >= 200 && status < 300);
        if (node.ready()) {
            heard(node);
        } else {
            node.heard(System.nanoTime());
            setUp(node, false, "not ready: its probe was answered " + status);
        }
    }

    /** The highest load the nodes up reported in their latest probe answers; NaN if none reported any. */
    public double busiest() {
        double max = Double.NaN;
        for (Node node : up) {
            double load = node.load();
            if (!Double.isNaN(load) && !(load <= max)) {
                max = load;
            }
        }
        return max;
    }

    /** Something came from {@code node}: it is alive, and up again if it is ready. */
    public void heard(Node node) {
        node.heard(System.nanoTime());
        if (!node.up() && node.ready()) {
            setUp(node, true, "up");
        }
    }

    /** Marks down the nodes not heard from within {@code timeoutNanos}; returns them. */
    public List<Node> markSilent(long now, long timeoutNanos) {
        List<Node> silent = all.stream().filter(n -> n.up() && now - n.lastHeardNanos() > timeoutNanos).toList();
        silent.forEach(n -> setUp(n, false, "down: no answer within the probe time-out"));
        return silent;
    }

    private synchronized void setUp(Node node, boolean value, String why) {
        if (node.up() == value) {
            return;
        }
        node.up(value);
        up = all.stream().filter(Node::up).toList();
        LOG.log(Level.INFO, "{0} is {1}", node, why);
    }
}
