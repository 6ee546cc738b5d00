package org.p2psip.front.calls;

import java.util.ArrayList;
import java.util.List;

/**
 * A non-INVITE server transaction (RFC 3261 §17.2.2, figure 8): answers a retransmitted request
 * with the last answer, once there is one, and remembers the final answer for 64 x T1 (Timer J)
 * so that every retransmission of the request still gets it.
 *
 * <p>Thread-safe as {@link InviteClient}: state changes under the machine's lock, the hop and the
 * user are called after it is released; a timer that fires after the state moved on does nothing.
 */
final class NonInviteServer {

    /** What the owner hears of the transaction; called without the machine's lock held. */
    interface User {
        /** The machine reached Terminated, once: the owner drops it from its table. */
        void terminated(NonInviteServer t);
    }

    private enum State { TRYING, PROCEEDING, COMPLETED, TERMINATED }

    private final Message request;
    private final TransactionPeer hop;
    private final Timers timers;
    private final User user;

    private State state = State.TRYING;
    private Message lastProvisional;
    private Message lastFinal;
    private Runnable cancelJ;

    NonInviteServer(Message request, TransactionPeer hop, Timers timers, User user) {
        String method = request.method;
        if ("INVITE".equals(method) || "ACK".equals(method)) {
            throw new IllegalArgumentException("not a non-INVITE transaction: " + method);
        }
        this.request = request;
        this.hop = hop;
        this.timers = timers;
        this.user = user;
    }

    /**
     * The request came again: absorbed in Trying (nothing to say yet: a non-INVITE is answered by
     * its final answer soon, §17.2.2), the last provisional answer in Proceeding, the final one in
     * Completed.
     */
    void onRetransmission() {
        Message again;
        synchronized (this) {
            again = state == State.PROCEEDING ? lastProvisional : state == State.COMPLETED ? lastFinal : null;
        }
        if (again != null) {
            hop.send(again);
        }
    }

    /** An answer from the owner: sent in Trying and Proceeding; dropped once the final answer went. */
    void respond(Message r) {
        int status = r.status;
        List<Runnable> then = new ArrayList<>(2);
        synchronized (this) {
            if ((state != State.TRYING && state != State.PROCEEDING) || status < 100) {
                return;
            }
            then.add(() -> hop.send(r));
            if (status < 200) {
                state = State.PROCEEDING;
                lastProvisional = r;
            } else {
                state = State.COMPLETED;
                lastFinal = r;
                if (hop.reliable()) {
                    state = State.TERMINATED; // Timer J is zero: a reliable hop never sends the request again
                    then.add(() -> user.terminated(this));
                } else {
                    cancelJ = timers.after(SipTimes.TIMEOUT, this::timerJ);
                }
            }
        }
        then.forEach(Runnable::run);
    }

    /** Stops Timer J and makes the machine Terminated without a word to the user. */
    void stop() {
        synchronized (this) {
            state = State.TERMINATED;
            if (cancelJ != null) {
                cancelJ.run();
            }
        }
    }

    /** "trying", "proceeding", "completed" or "terminated". */
    synchronized String state() {
        return state.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The final answer sent, or null before one. */
    synchronized Message lastFinal() {
        return lastFinal;
    }

    Message request() {
        return request;
    }

    private void timerJ() {
        synchronized (this) {
            if (state != State.COMPLETED) {
                return;
            }
            state = State.TERMINATED;
        }
        user.terminated(this);
    }
}
