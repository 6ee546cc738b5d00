package org.p2psip.dht.bryan;

/**
 * The REGISTERs of one kind (routed operations, or write copies) on their way to one peer: how
 * many are in flight and whether the next one lingers. Decides when the waiting entries may leave:
 * the first REGISTER once its oldest entry lingered {@code batch-linger} (or enough wait), a
 * further one while others travel only with a full batch, and at most {@code peer-window} at once.
 * Not thread-safe: runs on the peer's loop.
 */
final class Pipe {

    private int inFlight;
    private boolean lingering;

    /**
     * Whether a REGISTER with the waiting entries may leave now. When it must linger first, this
     * schedules {@code again} for when it may, and answers false.
     *
     * @param waiting     entries waiting (none: false)
     * @param full        entries that make a full batch
     * @param oldestNanos when the oldest waiting entry was queued
     */
    boolean mayLeave(BryanPeer peer, int waiting, int full, long oldestNanos, Runnable again) {
        if (waiting == 0 || inFlight >= peer.settings().peerWindow()) {
            return false;
        }
        if (inFlight > 0) {
            return waiting >= full; // else they go together when an answer comes
        }
        long linger = peer.settings().lingerLeftMillis(oldestNanos, waiting);
        if (linger == 0) {
            return true; // lingered long enough, or enough came meanwhile: a pending timer finds less to do
        }
        if (!lingering) {
            lingering = true;
            peer.schedule(() -> {
                lingering = false;
                again.run();
            }, linger);
        }
        return false;
    }

    void left() {
        inFlight++;
    }

    void answered() {
        inFlight--;
    }

    /** Nothing in flight and nothing lingering: the pipe may be forgotten once nothing waits either. */
    boolean idle() {
        return inFlight == 0 && !lingering;
    }
}
