package org.p2psip.front.nodes;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One node behind the front: its address, whether it is up, and the load counters the policies
 * read. Counters go up when the front sends a request and down when it sees the final answer.
 * Thread-safe: counters are atomic, flags volatile.
 */
public final class Node {

    private final int index;
    private final InetSocketAddress address;
    private final AtomicInteger invites = new AtomicInteger();
    private final AtomicInteger others = new AtomicInteger();
    private final AtomicInteger calls = new AtomicInteger();
    private final LongAdder chosen = new LongAdder();
    private volatile boolean up;
    /** Whether its last probe was answered 2xx; a node is up only while ready. */
    private volatile boolean ready;
    private volatile long lastHeardNanos;
    private volatile double load = Double.NaN;

    public Node(int index, InetSocketAddress address) {
        this.index = index;
        this.address = address;
    }

    public int index() {
        return index;
    }

    public InetSocketAddress address() {
        return address;
    }

    /** Open INVITE transactions sent to this node. */
    public int invites() {
        return invites.get();
    }

    /** Open transactions of any other method sent to this node. */
    public int others() {
        return others.get();
    }

    /** Open transactions of any method. */
    public int transactions() {
        return invites.get() + others.get();
    }

    /** Calls assigned to this node that have not ended (INVITE sent, no failure answer or BYE answer yet). */
    public int calls() {
        return calls.get();
    }

    public boolean up() {
        return up;
    }

    /** Transactions the policy sent to this node since the front started (its choices). */
    public long chosen() {
        return chosen.sum();
    }

    public void transactionStarted(boolean invite) {
        chosen.increment();
        (invite ? invites : others).incrementAndGet();
    }

    public void transactionEnded(boolean invite) {
        (invite ? invites : others).decrementAndGet();
    }

    public void callStarted() {
        calls.incrementAndGet();
    }

    public void callEnded() {
        calls.decrementAndGet();
    }

    boolean ready() {
        return ready;
    }

    void ready(boolean value) {
        ready = value;
    }

    void heard(long nanos) {
        lastHeardNanos = nanos;
    }

    long lastHeardNanos() {
        return lastHeardNanos;
    }

    /** The utilisation its latest probe answer reported (NaN: none yet): what the dynamic state split reads. */
    public double load() {
        return load;
    }

    void load(double value) {
        load = value;
    }

    void up(boolean value) {
        up = value;
    }

    @Override
    public String toString() {
        return "node" + index + "(" + address.getHostString() + ":" + address.getPort() + ")";
    }
}
