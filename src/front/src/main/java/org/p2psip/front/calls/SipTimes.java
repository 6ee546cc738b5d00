package org.p2psip.front.calls;

/**
 * RFC 3261's timer values (§17.1.1.1 and Table 4), in milliseconds: the one place the transaction
 * machines and their owner read them from. The defaults of the RFC, which it lets a proxy on a
 * network of known speed lower, not raise.
 */
final class SipTimes {

    /** T1: an estimate of the round-trip time; the first retransmission interval. */
    static final long T1 = 500;
    /** T2: the longest retransmission interval of a non-INVITE request and of an INVITE's final answer. */
    static final long T2 = 4_000;
    /** T4: how long a message may stay in the network; Timers I and K over an unreliable transport. */
    static final long T4 = 5_000;
    /** 64 x T1: Timers B, F, H, J and RFC 6026's L. */
    static final long TIMEOUT = 64 * T1;
    /** Timer D over an unreliable transport: "at least 32 s" for the retransmitted non-2xx answers of an INVITE. */
    static final long TIMER_D = 32_000;

    private SipTimes() {
    }
}
