package org.p2psip.front.relay;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.p2psip.front.nodes.Node;

/**
 * The transactions the front has forwarded and not yet seen a final answer to: what the load
 * counters need (the node, whether it is an INVITE) and what answering 503 for a node that died
 * needs (the request as sent to the node, and the client's TCP connection if any). Keyed by the
 * front's branch and the CSeq method, since a CANCEL shares its INVITE's branch. Bounded by
 * {@code max} and by the time-outs applied in {@link #expire}.
 *
 * <p>Thread-safe: a concurrent map; each transaction is counted on its node exactly once when it
 * is added and once when it is removed, whichever thread removes it.
 */
public final class Transactions {

    /**
     * One forwarded transaction. The request is kept as the bytes sent to the node and parsed only
     * in the rare case it must be answered 503; its array is not changed after it is stored.
     */
    static final class Open {
        final Node node;
        final boolean invite;
        final byte[] forwarded;
        final long connection;
        final long startNanos;
        volatile boolean provisional;

        Open(Node node, boolean invite, byte[] forwarded, long connection, long startNanos) {
            this.node = node;
            this.invite = invite;
            this.forwarded = forwarded;
            this.connection = connection;
            this.startNanos = startNanos;
        }
    }

    enum Start { STARTED, RETRANSMISSION, FULL }

    private final ConcurrentHashMap<String, Open> open = new ConcurrentHashMap<>();
    /**
     * Non-INVITE transactions answered 503 because their node was found dead, and when: a node
     * that was only slow may still answer one, and its client, told 503 already, must not hear a
     * second final answer for one request (a phone of an avalanche got 503 and then 200).
     */
    private final ConcurrentHashMap<String, Long> abandoned = new ConcurrentHashMap<>();
    private final int max;

    public Transactions(int max) {
        this.max = max;
    }

    static String key(String branch, String method) {
        return branch + ' ' + method;
    }

    /** Records a transaction sent to its node; a retransmission of one already open is not counted again. */
    Start start(String key, Open transaction) {
        if (open.containsKey(key)) {
            return Start.RETRANSMISSION;
        }
        if (open.size() >= max) {
            return Start.FULL;
        }
        if (open.putIfAbsent(key, transaction) != null) {
            return Start.RETRANSMISSION;
        }
        transaction.node.transactionStarted(transaction.invite);
        return Start.STARTED;
    }

    /** The open transaction under {@code key}, or null once it was answered or forgotten. */
    Open get(String key) {
        return open.get(key);
    }

    /** A provisional answer came: an INVITE now lives until Timer C rather than Timer B. */
    Open provisional(String key) {
        Open transaction = open.get(key);
        if (transaction != null) {
            transaction.provisional = true;
        }
        return transaction;
    }

    /** A final answer came: the transaction is over. Null if it was not open (a retransmitted answer). */
    Open finish(String key) {
        Open transaction = open.remove(key);
        if (transaction != null) {
            transaction.node.transactionEnded(transaction.invite);
        }
        return transaction;
    }

    /** Removes and returns every transaction open on {@code node} at {@code now}, for answering them 503. */
    List<Open> abandon(Node node, long now) {
        var taken = new ArrayList<Open>();
        for (Map.Entry<String, Open> e : open.entrySet()) {
            Open transaction = e.getValue();
            if (transaction.node == node && open.remove(e.getKey(), transaction)) {
                transaction.node.transactionEnded(transaction.invite);
                if (!transaction.invite) { // a late 2xx of an INVITE still goes on: its dialog needs the ACK
                    abandoned.put(e.getKey(), now);
                }
                taken.add(transaction);
            }
        }
        return taken;
    }

    /** Whether a final answer comes for a transaction answered 503 by {@link #abandon}; true once. */
    boolean answeredAlready(String key) {
        return !abandoned.isEmpty() && abandoned.remove(key) != null;
    }

    /** Forgets transactions older than their time-out; returns how many. */
    public int expire(long now, long timeoutNanos, long inviteTimeoutNanos) {
        abandoned.values().removeIf(at -> now - at > timeoutNanos);
        int expired = 0;
        for (Map.Entry<String, Open> e : open.entrySet()) {
            Open transaction = e.getValue();
            long limit = transaction.invite && transaction.provisional ? inviteTimeoutNanos : timeoutNanos;
            if (now - transaction.startNanos > limit && open.remove(e.getKey(), transaction)) {
                transaction.node.transactionEnded(transaction.invite);
                expired++;
            }
        }
        return expired;
    }

    public int size() {
        return open.size();
    }
}
