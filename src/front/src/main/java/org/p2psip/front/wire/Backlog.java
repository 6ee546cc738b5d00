package org.p2psip.front.wire;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * How much of the front's new work to refuse so that its UDP loop keeps up with its socket. A
 * loop that cannot keep up falls behind, and past what the socket holds the kernel drops
 * datagrams, requests and the nodes' answers alike, with nobody told (a minute of 6,000 REGISTER/s
 * through one front before a small node: 315,780 datagrams dropped at the front's socket, 447
 * REGISTERs never answered after all their retransmissions). So the loop's reads are timed: every
 * {@link #WINDOW_NANOS}, the share of the window the loop spent reading and forwarding is its
 * utilisation (time the thread waited for a core counts, since the socket fills meanwhile too).
 * Above {@link #HIGH}, over at least {@link #MIN_DATAGRAMS}, and with more than
 * {@link #QUEUE_SHARE} of the socket's buffer waiting in it ({@link SocketQueue}), the share of new
 * requests the front answers 503 itself grows by {@link #STEP}; below {@link #LOW}, or with less
 * than half that queue, it falls by as much per window gone by. The queue decides because a busy
 * loop is not always a loop behind: a front just started runs cold code and shares the cores with
 * the nodes warming up, and it shed ordinary load for seconds (four nodes and a front, 500
 * REGISTER/s through it the moment they were up) while its socket held everything and the JIT
 * caught up. A shed request costs the loop one datagram out for one in, where a forwarded one
 * costs two of each (the request to its node, the node's answer back), and its node never sees it.
 * Where the queue cannot be read, the loop's busy time decides alone.
 *
 * <p>Written by the UDP loop's reads; {@link #shed} from any thread.
 */
public final class Backlog {

    static final long WINDOW_NANOS = 20_000_000L;
    static final double HIGH = 0.8;
    static final double LOW = 0.6;
    static final double STEP = 0.1;
    /**
     * Datagrams a window must have handled for a busy loop to count as behind its socket: a cold
     * or paused loop is slow on a few datagrams too (a front just started shed the first
     * registrations of a test at a trickle), and shedding those would help nobody.
     */
    static final int MIN_DATAGRAMS = 2 * SocketLayer.DATAGRAMS_PER_READ;
    /**
     * The share of the socket's buffer that must be waiting for a busy loop to count as behind: a
     * quarter leaves room for the shed share to grow (by {@link #STEP} a window) before the kernel
     * drops anything, at several times the front's rate.
     */
    static final double QUEUE_SHARE = 0.25;

    private final LongSupplier queued;
    private final long behindBytes;
    private long windowStart = -1;
    private long busy;
    private int datagrams;
    private long readStart = -1;
    private volatile double share;
    /** Every read's busy time so far: the dynamic state split reads the loop's utilisation from it. */
    private final LongAdder busyTotal = new LongAdder();

    /** A backlog judged by the loop's busy time alone. */
    public Backlog() {
        this(() -> -1, 0);
    }

    /** A backlog that also reads the socket's queue: {@code queued} gives its bytes (-1: unknown), {@code capacity} its buffer. */
    Backlog(LongSupplier queued, long capacity) {
        this.queued = queued;
        this.behindBytes = (long) (QUEUE_SHARE * capacity);
    }

    /** The backlog of the UDP socket {@code queue} reads. */
    public static Backlog of(SocketQueue queue) {
        return new Backlog(queue::bytes, queue.capacity());
    }

    /** A datagram of a read is handled from {@code nanos} on (the first starts the read's timing); on the UDP loop. */
    public void reading(long nanos) {
        datagrams++;
        if (readStart < 0) {
            readStart = nanos;
        }
        if (windowStart < 0) {
            windowStart = nanos;
        }
    }

    /** The read that began with {@link #reading} ended at {@code nanos}, its answers flushed. On the UDP loop. */
    public void readDone(long nanos) {
        if (readStart < 0) {
            return;
        }
        busy += nanos - readStart;
        busyTotal.add(nanos - readStart);
        readStart = -1;
        long elapsed = nanos - windowStart;
        if (elapsed >= WINDOW_NANOS) {
            double utilisation = (double) busy / elapsed;
            // The queue is read only when the loop is busy: most windows cost no read at all.
            long queue = utilisation < LOW || (datagrams < MIN_DATAGRAMS && share == 0) ? -1 : queued.getAsLong();
            if (utilisation > HIGH && datagrams >= MIN_DATAGRAMS && (queue < 0 || queue > behindBytes)) {
                share = Math.min(1, share + STEP);
            } else if (utilisation < LOW || (queue >= 0 && queue < behindBytes / 2)) {
                share = Math.max(0, share - STEP * (elapsed / WINDOW_NANOS));
            }
            windowStart = nanos;
            busy = 0;
            datagrams = 0;
        }
    }

    /**
     * The loop's busy time since it started, in nanoseconds of wall time: what it spent reading and
     * forwarding, waiting for a core included. Any thread.
     */
    public long busyNanos() {
        return busyTotal.sum();
    }

    /** The share of new requests the front answers 503 itself now, 0 to 1. */
    double share() {
        return share;
    }

    /** Whether to answer this new request 503: drawn at the current share. */
    public boolean shed() {
        double now = share;
        return now > 0 && ThreadLocalRandom.current().nextDouble() < now;
    }
}
