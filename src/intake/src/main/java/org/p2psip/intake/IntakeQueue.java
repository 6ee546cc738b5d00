package org.p2psip.intake;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import java.net.DatagramPacket;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The queue between the stack's UDP reader and its message threads, which screens what a thread
 * takes before the stack parses it ({@link Screen}): a datagram screened out is refused or
 * dropped here and the thread takes the next.
 *
 * <p>The reader hands over each datagram in a buffer of the stack's largest message size
 * (16 KiB); the queue keeps a copy of just its bytes, a few hundred, so that a queue a collector
 * pause or a flood lengthened holds a few megabytes, not the heap (54,000 queued datagrams once
 * held 880 MB of buffers). The queue is bounded in bytes too: past {@code maxBytes} the reader
 * itself refuses new requests (503, statelessly) instead of queueing them, since a message thread
 * would take them only after their clients' retransmissions. Thread-safe.
 */
final class IntakeQueue extends LinkedBlockingQueue<DatagramQueuedMessageDispatch> {

    private static final long serialVersionUID = 1L;
    /** What a queued datagram costs beside its bytes: the packet, the dispatch, the queue's node. */
    static final int ENTRY_BYTES = 160;

    private final transient Screen screen;
    private final long maxBytes;
    private final AtomicLong bytes = new AtomicLong();

    IntakeQueue(Screen screen, long maxBytes) {
        this.screen = screen;
        this.maxBytes = maxBytes;
    }

    /** The reader's side: a compact copy queued, or refused at once when the queue is full. */
    @Override
    public boolean offer(DatagramQueuedMessageDispatch queued) {
        DatagramPacket packet = queued.packet;
        int offset = packet.getOffset();
        packet.setData(Arrays.copyOfRange(packet.getData(), offset, offset + packet.getLength()));
        if (bytes.get() > maxBytes && screen.overflows(queued)) {
            return true;
        }
        bytes.addAndGet(cost(queued));
        return super.offer(queued);
    }

    @Override
    public DatagramQueuedMessageDispatch take() throws InterruptedException {
        while (true) {
            DatagramQueuedMessageDispatch next = taken(super.take());
            if (screen.passes(next)) {
                return next;
            }
        }
    }

    @Override
    public DatagramQueuedMessageDispatch poll(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            DatagramQueuedMessageDispatch next = taken(super.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
            if (next == null || screen.passes(next)) {
                return next;
            }
        }
    }

    /** The bytes the queue holds now, its datagrams and their bookkeeping. */
    long bytes() {
        return bytes.get();
    }

    private DatagramQueuedMessageDispatch taken(DatagramQueuedMessageDispatch queued) {
        if (queued != null) {
            bytes.addAndGet(-cost(queued)); // before the screen, which may give the packet other bytes
        }
        return queued;
    }

    private static long cost(DatagramQueuedMessageDispatch queued) {
        return queued.packet.getLength() + ENTRY_BYTES;
    }
}
