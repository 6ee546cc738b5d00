package org.p2psip.dht.ring;

import java.time.Duration;

/**
 * The messages of one kind (write copies, or batched operations) on their way to one node: how
 * many are in flight and whether the next one lingers. Decides when the waiting entries may leave:
 * the first message once its oldest entry lingered {@code linger} (or {@link #ENOUGH} wait), a
 * further one while others travel only with a full batch, and at most {@code window} at once.
 * With a window of 1 and no linger, each message leaves as soon as the last was answered, with
 * everything that waited meanwhile. Not thread-safe: runs on the node's loop.
 */
public final class SendWindow {

    /** Waiting entries that make a batch worth sending without lingering further. */
    public static final int ENOUGH = 32;

    private final NodeThread loop;
    private final int window;
    private final long lingerNanos;
    private int inFlight;
    private boolean lingering;

    public SendWindow(NodeThread loop, int window, Duration linger) {
        if (window < 1) {
            throw new IllegalArgumentException("a pipe's window is at least 1, not " + window);
        }
        this.loop = loop;
        this.window = window;
        this.lingerNanos = linger.toNanos();
    }

    /**
     * Whether a message with the waiting entries may leave now. When it must linger first, this
     * schedules {@code again} for when it may, and answers false.
     *
     * @param waiting     entries waiting (none: false)
     * @param full        entries that make a full batch
     * @param oldestNanos when the oldest waiting entry was queued
     */
    public boolean mayLeave(int waiting, int full, long oldestNanos, Runnable again) {
        if (waiting == 0 || inFlight >= window) {
            return false;
        }
        if (inFlight > 0) {
            return waiting >= full; // else they go together when an answer comes
        }
        long linger = lingerLeftMillis(oldestNanos, waiting);
        if (linger == 0) {
            return true; // lingered long enough, or enough came meanwhile: a pending timer finds less to do
        }
        if (!lingering && loop.schedule(() -> {
            lingering = false;
            again.run();
        }, linger) != null) {
            lingering = true;
        }
        return false;
    }

    /** Milliseconds a batch whose oldest entry was queued at {@code oldestNanos} still waits for company; 0: now. */
    private long lingerLeftMillis(long oldestNanos, int waiting) {
        long left = lingerNanos - (loop.nanoTime() - oldestNanos);
        if (left <= 0 || waiting >= ENOUGH) {
            return 0;
        }
        return (left + 999_999) / 1_000_000;
    }

    public void left() {
        inFlight++;
    }

    public void answered() {
        inFlight--;
    }

    /** Nothing in flight and nothing lingering: the pipe may be forgotten once nothing waits either. */
    public boolean idle() {
        return inFlight == 0 && !lingering;
    }
}
