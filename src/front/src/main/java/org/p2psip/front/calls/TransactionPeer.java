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
     * False if it could not go: the TCP or TLS connection it goes by has closed (nothing is thrown;
     * the machine then ends its sending, as RFC 3261 §17.1.4 and §17.2.4 have a transport error end it).
     */
    boolean send(Message message);

    /**
     * True over TCP or TLS: the transport delivers or fails, so the machines retransmit nothing
     * and Timers D, I, J and K are zero (RFC 3261 §17).
     */
    boolean reliable();
}
