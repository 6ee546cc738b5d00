package org.p2psip.front.status;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** What the front counted since it started. Thread-safe (adders). */
public final class FrontStats {

    public final LongAdder requestsForwarded = new LongAdder();
    public final LongAdder responsesForwarded = new LongAdder();
    public final LongAdder unparsable = new LongAdder();
    public final LongAdder answered400 = new LongAdder();
    public final LongAdder answered416 = new LongAdder();
    public final LongAdder answered505 = new LongAdder();
    public final LongAdder answered483 = new LongAdder();
    public final LongAdder answered503 = new LongAdder();
    public final LongAdder shed = new LongAdder();
    public final LongAdder dropped = new LongAdder();
    public final LongAdder expired = new LongAdder();
    public final LongAdder lateAnswersDropped = new LongAdder();
    public final LongAdder probesSent = new LongAdder();
    public final LongAdder tlsHandshakeFailures = new LongAdder();
    public final LongAdder flowRequests = new LongAdder();
    public final LongAdder flowsFailed = new LongAdder();
    public final LongAdder keepalivesAnswered = new LongAdder();
    public final LongAdder retransmittedToNodes = new LongAdder();
    public final LongAdder statefulCalls = new LongAdder();
    public final LongAdder keptRequests = new LongAdder();
    public final LongAdder keptAckTimeouts = new LongAdder();
    public final LongAdder keptStreamCalls = new LongAdder();
    public final LongAdder keptConnectionsLost = new LongAdder();

    /** Requests sent on to a node (retransmissions included). */
    public long requestsForwarded() {
        return requestsForwarded.sum();
    }

    /** Answers of nodes sent back towards clients. */
    public long responsesForwarded() {
        return responsesForwarded.sum();
    }

    /** Messages that were not SIP at all (or too large); dropped. */
    public long unparsable() {
        return unparsable.sum();
    }

    /** Requests answered 400 by the front: not valid SIP (a required header missing or malformed, and the like). */
    public long answered400() {
        return answered400.sum();
    }

    /** Requests answered 416 by the front: a Request-URI neither sip nor sips. */
    public long answered416() {
        return answered416.sum();
    }

    /** Requests answered 505 by the front: a SIP version other than 2.0. */
    public long answered505() {
        return answered505.sum();
    }

    public long answered483() {
        return answered483.sum();
    }

    /** Requests answered 503 by the front: no node up, its node died, or too many transactions open. */
    public long answered503() {
        return answered503.sum();
    }

    /** New requests answered 503 by the front while its UDP loop was behind its socket ({@code Backlog}). */
    public long shed() {
        return shed.sum();
    }

    /** Messages dropped without an answer: no Via, a stray response, an ACK with nowhere to go, an unroutable answer. */
    public long dropped() {
        return dropped.sum();
    }

    /** Transactions forgotten without a final answer after their time-out. */
    public long expired() {
        return expired.sum();
    }

    /** Final answers of a node to requests the front answered 503 when it found the node dead; dropped. */
    public long lateAnswersDropped() {
        return lateAnswersDropped.sum();
    }

    /** TLS connections closed because their handshake failed (not TLS, refused, timed out, hung up early). */
    public long tlsHandshakeFailures() {
        return tlsHandshakeFailures.sum();
    }

    /** Requests of nodes carried to a client over its own connection (its flow, RFC 5626). */
    public long flowRequests() {
        return flowRequests.sum();
    }

    /** Requests for a flow whose connection is gone (or a token not this front's): answered 430 Flow Failed. */
    public long flowsFailed() {
        return flowsFailed.sum();
    }

    /** CRLFCRLF keep-alive pings on TCP or TLS connections answered with CRLF (RFC 5626 §3.5.1). */
    public long keepalivesAnswered() {
        return keepalivesAnswered.sum();
    }

    /** Requests of TCP and TLS clients sent to their node again, unanswered after T1 and more (the UDP hop may lose them). */
    public long retransmittedToNodes() {
        return retransmittedToNodes.sum();
    }

    /** New INVITEs whose transaction state the front kept itself (stateful or dynamic mode): their node only redirected. */
    public long statefulCalls() {
        return statefulCalls.sum();
    }

    /** Requests within the dialogs the front keeps (ACK, BYE, ...) that it routed itself, retransmissions not counted. */
    public long keptRequests() {
        return keptRequests.sum();
    }

    /** Failure answers of kept calls that the caller never ACKed within 64 x T1 (RFC 3261 Timer H). */
    public long keptAckTimeouts() {
        return keptAckTimeouts.sum();
    }

    /** Kept calls (counted in {@link #statefulCalls}) whose caller or a rung contact is on a TCP or TLS connection to the front. */
    public long keptStreamCalls() {
        return keptStreamCalls.sum();
    }

    /** Kept calls whose caller's TCP or TLS connection closed before its answer could be sent: the call was ended. */
    public long keptConnectionsLost() {
        return keptConnectionsLost.sum();
    }

    public Map<String, Long> snapshot() {
        var map = new LinkedHashMap<String, Long>();
        map.put("requestsForwarded", requestsForwarded());
        map.put("responsesForwarded", responsesForwarded());
        map.put("unparsable", unparsable());
        map.put("answered400", answered400());
        map.put("answered416", answered416());
        map.put("answered505", answered505());
        map.put("answered483", answered483());
        map.put("answered503", answered503());
        map.put("shed", shed());
        map.put("dropped", dropped());
        map.put("expired", expired());
        map.put("lateAnswersDropped", lateAnswersDropped());
        map.put("probesSent", probesSent.sum());
        map.put("tlsHandshakeFailures", tlsHandshakeFailures());
        map.put("flowRequests", flowRequests());
        map.put("flowsFailed", flowsFailed());
        map.put("keepalivesAnswered", keepalivesAnswered());
        map.put("retransmittedToNodes", retransmittedToNodes());
        map.put("statefulCalls", statefulCalls());
        map.put("keptRequests", keptRequests());
        map.put("keptAckTimeouts", keptAckTimeouts());
        map.put("keptStreamCalls", keptStreamCalls());
        map.put("keptConnectionsLost", keptConnectionsLost());
        return map;
    }
}
