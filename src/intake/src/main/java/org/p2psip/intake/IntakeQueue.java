package org.p2psip.intake;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The queue between the stack's UDP reader and its message threads, which screens what a thread
 * takes before the stack parses it ({@link Screen}): a datagram screened out is refused or
 * dropped here and the thread takes the next. The reader's side is the plain queue's: it stays as
 * cheap as it was. Thread-safe.
 */
final class IntakeQueue extends LinkedBlockingQueue<DatagramQueuedMessageDispatch> {

    private static final long serialVersionUID = 1L;

    private final transient Screen screen;

    IntakeQueue(Screen screen) {
        this.screen = screen;
    }

    @Override
    public DatagramQueuedMessageDispatch take() throws InterruptedException {
        while (true) {
            DatagramQueuedMessageDispatch next = super.take();
            if (screen.passes(next)) {
                return next;
            }
        }
    }

    @Override
    public DatagramQueuedMessageDispatch poll(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            DatagramQueuedMessageDispatch next = super.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (next == null || screen.passes(next)) {
                return next;
            }
        }
    }
}
