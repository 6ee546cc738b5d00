package org.p2psip.front;

import gov.nist.javax.sip.message.SIPRequest;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.net.InetSocketAddress;
import java.text.ParseException;
import java.util.concurrent.atomic.AtomicLong;
import org.p2psip.front.calls.FrontLoad;
import org.p2psip.front.calls.KeptCalls;
import org.p2psip.front.calls.StateSplit;
import org.p2psip.front.nodes.AffinityTable;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.nodes.Nodes;
import org.p2psip.front.relay.Forwarder;
import org.p2psip.front.relay.Transactions;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.Branches;
import org.p2psip.front.wire.Destination;
import org.p2psip.front.wire.SipParser;

/**
 * The front's periodic work, run on one event-loop thread every probe interval: an OPTIONS probe
 * to every node; nodes silent for the probe time-out taken down and their open transactions
 * answered 503; transactions past their time-out forgotten; expired Call-IDs swept; once a
 * minute the counters logged. Not
 * thread-safe: one thread calls {@link #tick}.
 */
final class Prober {

    /** How often the counters are written to the log, for an operator watching it. */
    private static final long REPORT_EVERY_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(1);
    private static final Logger LOG = System.getLogger(Prober.class.getName());

    private final InetSocketAddress self;
    private final Nodes nodes;
    private final Forwarder forwarder;
    private final Transactions transactions;
    private final AffinityTable affinity;
    private final Destination outlet;
    private final FrontStats stats;
    private final long probeTimeoutNanos;
    private final long transactionTimeoutNanos;
    private final long inviteTimeoutNanos;
    private final KeptCalls kept;
    private final StateSplit split;
    private final FrontLoad load;
    private final AtomicLong sequence = new AtomicLong();
    private long lastReportNanos = System.nanoTime();

    /**
     * {@code split}: the dynamic split this prober feeds with the loads ({@code load} the front's),
     * null when the front's mode is fixed.
     */
    Prober(InetSocketAddress self, Nodes nodes, Forwarder forwarder, Transactions transactions, AffinityTable affinity,
            Destination outlet, FrontStats stats, KeptCalls kept, StateSplit split, FrontLoad load, long probeTimeoutNanos,
            long transactionTimeoutNanos, long inviteTimeoutNanos) {
        this.kept = kept;
        this.split = split;
        this.load = load;
        this.self = self;
        this.nodes = nodes;
        this.forwarder = forwarder;
        this.transactions = transactions;
        this.affinity = affinity;
        this.outlet = outlet;
        this.stats = stats;
        this.probeTimeoutNanos = probeTimeoutNanos;
        this.transactionTimeoutNanos = transactionTimeoutNanos;
        this.inviteTimeoutNanos = inviteTimeoutNanos;
    }

    void tick() {
        long now = System.nanoTime();
        for (Node dead : nodes.markSilent(now, probeTimeoutNanos)) {
            forwarder.abandon(dead);
        }
        long seq = sequence.incrementAndGet();
        for (Node node : nodes.all()) {
            outlet.toNode(node, probe(node, seq));
            stats.probesSent.increment();
        }
        stats.expired.add(transactions.expire(now, transactionTimeoutNanos, inviteTimeoutNanos));
        kept.expire();
        double own = load.sample();
        if (split != null) {
            split.observe(own, nodes.busiest()); // the nodes' loads came with the previous probes' answers
        }
        affinity.sweep(now);
        if (now - lastReportNanos >= REPORT_EVERY_NANOS) {
            lastReportNanos = now;
            LOG.log(Level.INFO, "{0}, Call-IDs {1}, open transactions {2}, nodes up {3}", stats.snapshot(),
                    affinity.size(), transactions.size(), nodes.up());
        }
    }

    /**
     * An OPTIONS to {@code node}: written from a template, read back by the parser so it is known
     * to be well formed. Its branch holds the front's inner port: fronts that share a listen
     * address probe the same nodes with the same sequence, and a node would take the second
     * front's probe for a retransmission of the first's and answer only the first.
     */
    private byte[] probe(Node node, long seq) {
        String front = self.getAddress().getHostAddress() + ":" + self.getPort();
        String target = node.address().getAddress().getHostAddress() + ":" + node.address().getPort();
        String text = "OPTIONS sip:" + target + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + front + ";branch=" + Branches.PROBE_PREFIX + node.index() + "-" + self.getPort() + "-" + seq + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:p2psip-front@" + front + ">;tag=p2psip-front\r\n"
                + "To: <sip:" + target + ">\r\n"
                + "Call-ID: " + Nodes.probeCallId(node) + "\r\n"
                + "CSeq: " + seq + " OPTIONS\r\n"
                + "Content-Length: 0\r\n\r\n";
        try {
            SIPRequest request = (SIPRequest) SipParser.parse(text.getBytes(java.nio.charset.StandardCharsets.UTF_8), true);
            return request.encodeAsBytes("UDP");
        } catch (ParseException e) {
            throw new IllegalStateException("the probe template is malformed", e);
        }
    }
}
