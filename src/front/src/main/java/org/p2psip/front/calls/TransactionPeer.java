package org.p2psip.front.calls;

/**
 * Where one transaction's messages go: the next hop of a client transaction, the previous hop of a
 * server transaction. Implementations never wait, and never call back into the machine that sends
 * (a machine sends after releasing its lock, but may send from a timer's thread).
 */
interface TransactionPeer {

    /**
     * Sends {@code message}. It must not be changed: a machine sends the same object again when it
     * retransmits (a request by Timers A and E, an answer by Timer G or a retransmitted request, an ACK).
     */
    void send(Message message);

    /**
     * True over TCP or TLS: the transport delivers or fails, so the machines retransmit nothing
     * and Timers D, I, J and K are zero (RFC 3261 §17).
     */
    boolean reliable();
}
