package org.p2psip.sipload;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.Selector;

/**
 * How the load's requests leave and its answers come back, one class per transport: {@link
 * UdpTransport} (one socket for every phone), {@link TcpTransport} (a connection per phone or per
 * request, plain or TLS). The load's one thread uses it; only {@link #wakeup} may come from another.
 */
interface LoadTransport extends Closeable {

    /** Where a transport hands what concerns the load's transactions. */
    interface Listener {
        void response(Response response, long now) throws IOException;

        /** The phone's connection failed or closed: a request of its that is out gets no answer. */
        void lost(Phone phone, long now) throws IOException;
    }

    /** "udp", "tcp" or "tls": in Via, in Contact and in the summary. */
    String name();

    /** Whether requests are sent again on Timer E: not on a reliable transport (RFC 3261 §17.1.1.2). */
    boolean retransmits();

    /**
     * Readies the phone to send: sets its Via address and Contact, opening a connection when it
     * needs one. False when it cannot (no connection could be opened: counted by the transport).
     */
    boolean ready(Phone phone, long now);

    void send(Phone phone, byte[] request) throws IOException;

    /** The phone's request got its final answer (a connection per request closes here). */
    void finished(Phone phone, long now);

    /**
     * Waits for input until {@code deadlineNanos} at the latest (now when it is past), or until
     * {@link #wakeup}, and handles what came: responses and losses go to {@code listener}; what the
     * transport does alone (keep-alives, answers to calls) is done here too.
     */
    void await(long deadlineNanos, Listener listener) throws IOException;

    /** Ends an {@link #await} early, from any thread. */
    void wakeup();

    /** Its connections' counters (all zero over UDP). */
    ConnectionTally connections();

    /**
     * Selects on {@code selector} until {@code deadlineNanos} at the latest; millisecond granularity,
     * so at high rates the attempts due meanwhile leave in a burst.
     */
    static void select(Selector selector, long deadlineNanos) throws IOException {
        long waitNanos = deadlineNanos - System.nanoTime();
        if (waitNanos <= 0) {
            selector.selectNow();
        } else {
            selector.select(Math.max(1, waitNanos / 1_000_000));
        }
    }
}
