package org.p2psip.front.relay;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import org.p2psip.front.calls.KeptCalls;
import org.p2psip.front.calls.ScriptedTimers;
import org.p2psip.front.calls.StateSplit;
import org.p2psip.front.nodes.AffinityTable;
import org.p2psip.front.nodes.Nodes;
import org.p2psip.front.policies.Policies;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.Backlog;
import org.p2psip.front.wire.Listeners;
import org.p2psip.front.wire.SipParser;

/**
 * The kept-call tests' front: a forwarder in stateful mode (every new call kept) before one node
 * that is up, on a scripted clock, whose every message is recorded; the requests the tests write
 * as text, and what the front sent parsed back by JAIN-SIP, by where it went.
 */
final class KeptFront {

    static final InetSocketAddress SELF = new InetSocketAddress("127.0.0.1", 5060);

    final ScriptedTimers clock = new ScriptedTimers();
    final FastPathTest.Recorder outlet = new FastPathTest.Recorder();
    final FrontStats stats = new FrontStats();
    final Nodes nodes = new Nodes(List.of(new InetSocketAddress("127.0.0.1", 5070)));
    final KeptCalls kept;
    final Forwarder forwarder;

    /** {@code branchTimeoutMillis}: how long a contact rings before the next is tried. */
    KeptFront(long branchTimeoutMillis) {
        nodes.probeAnswered(Nodes.probeCallId(nodes.all().get(0)), 200);
        var listeners = new Listeners(SELF, 0);
        kept = new KeptCalls(listeners, outlet, clock, Runnable::run, stats, nodes, 5, branchTimeoutMillis, 180_000, 100);
        forwarder = new Forwarder(listeners, nodes, Policies.named("rr", 1.75), new AffinityTable(1_000_000_000_000L, 100),
                new Transactions(100), outlet, stats, FastPathTest.TIMERS, kept, new StateSplit(1.0), new Backlog());
    }

    /** A request from 127.0.0.1:{@code port} over {@code transport}, From alice (tag a) To bob, with {@code routes}. */
    static String request(String method, String callId, String branch, String uri, int cseq, String toTag,
            String transport, int port, String... routes) {
        var text = new StringBuilder(method + " " + uri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport + " 127.0.0.1:" + port + ";branch=z9hG4bK-" + branch + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@example.com>;tag=a\r\n"
                + "To: <sip:bob@example.com>" + (toTag == null ? "" : ";tag=" + toTag) + "\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + "Contact: <sip:alice@127.0.0.1:" + port + ">\r\n");
        for (String route : routes) {
            text.append("Route: ").append(route).append("\r\n");
        }
        return text.append("Content-Length: 0\r\n\r\n").toString();
    }

    static SIPMessage parse(byte[] bytes) {
        try {
            return SipParser.parse(bytes, true);
        } catch (ParseException e) {
            throw new AssertionError("the front sent what it cannot read: " + new String(bytes, StandardCharsets.UTF_8), e);
        }
    }

    SIPRequest toNode(int i) {
        return (SIPRequest) parse(outlet.toNode.get(i));
    }

    /** What went to {@code address} over UDP, in order. */
    List<SIPMessage> sentTo(InetSocketAddress address) {
        var sent = new ArrayList<SIPMessage>();
        for (int i = 0; i < outlet.toClient.size(); i++) {
            if (address.equals(outlet.clientAddresses.get(i))) {
                sent.add(parse(outlet.toClient.get(i)));
            }
        }
        return sent;
    }

    SIPRequest sentTo(InetSocketAddress address, int i) {
        return (SIPRequest) sentTo(address).get(i);
    }

    int countSentTo(InetSocketAddress address) {
        return sentTo(address).size();
    }

    /** What went down TCP or TLS connection {@code connection}, in order. */
    List<SIPMessage> onConnection(long connection) {
        var sent = new ArrayList<SIPMessage>();
        for (int i = 0; i < outlet.toClient.size(); i++) {
            if (outlet.connections.get(i) == connection) {
                sent.add(parse(outlet.toClient.get(i)));
            }
        }
        return sent;
    }
}
