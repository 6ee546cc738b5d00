package org.p2psip.front.calls;

import java.util.ArrayList;
import java.util.List;

/**
 * A non-INVITE client transaction (RFC 3261 §17.1.2, figure 6): sends a request other than INVITE
 * and ACK (a CANCEL, a BYE, a REGISTER) to one hop, again on Timer E over an unreliable hop, and
 * gives up on Timer F. Answers that come after the final one are absorbed.
 *
 * <p>Thread-safe as {@link InviteClient}: state changes under the machine's lock, the hop and the
 * user are called after it is released; a timer that fires after the state moved on does nothing.
 */
final class NonInviteClient {

    /** What the owner hears of the transaction; called without the machine's lock held. */
    interface User {
        /** A provisional answer, each one until the final answer. */
        void provisional(NonInviteClient t, Message r);

        /** The final answer, once. */
        void finalAnswer(NonInviteClient t, Message r);

        /** Timer F: no final answer within 64 x T1; the machine is terminated. */
        void timedOut(NonInviteClient t);

        /** The machine reached Terminated (not by {@link #stop}); the owner may forget it. Once. */
        default void terminated(NonInviteClient t) {
        }
    }

    private enum State { TRYING, PROCEEDING, COMPLETED, TERMINATED }

    private final Message request;
    private final TransactionPeer hop;
    private final Timers timers;
    private final User user;

    private State state = State.TRYING;
    private boolean started;
    private Runnable cancelE;
    private Runnable cancelF;
    private Runnable cancelK;

    NonInviteClient(Message request, TransactionPeer hop, Timers timers, User user) {
        String method = request.method;
        if ("INVITE".equals(method) || "ACK".equals(method)) {
            throw new IllegalArgumentException("not a non-INVITE transaction: " + method);
        }
        this.request = request;
        this.hop = hop;
        this.timers = timers;
        this.user = user;
    }

    /** Sends the request and starts Timers E (unreliable hop only) and F. Once; later calls do nothing. */
    void start() {
        synchronized (this) {
            if (started || state != State.TRYING) {
                return;
            }
            started = true;
            if (!hop.reliable()) {
                cancelE = timers.after(SipTimes.T1, () -> timerE(SipTimes.T1));
            }
            cancelF = timers.after(SipTimes.TIMEOUT, this::timerF);
        }
        hop.send(request);
    }

    /** An answer whose Via branch and CSeq method match this transaction (§17.1.3). */
    void onResponse(Message r) {
        int status = r.status;
        List<Runnable> then = new ArrayList<>(2);
        synchronized (this) {
            if (status < 100 || (state != State.TRYING && state != State.PROCEEDING)) {
                return; // Completed absorbs the retransmitted final answer
            }
            if (status < 200) {
                state = State.PROCEEDING; // Timer E goes on, every T2 from its next firing
                then.add(() -> user.provisional(this, r));
            } else {
                state = State.COMPLETED;
                cancelEAndF();
                then.add(() -> user.finalAnswer(this, r));
                if (hop.reliable()) {
                    state = State.TERMINATED; // Timer K is zero
                    then.add(() -> user.terminated(this));
                } else {
                    cancelK = timers.after(SipTimes.T4, this::timerK);
                }
            }
        }
        then.forEach(Runnable::run);
    }

    /** Stops every timer and makes the machine Terminated without a word to the user. */
    void stop() {
        synchronized (this) {
            state = State.TERMINATED;
            cancelEAndF();
            if (cancelK != null) {
                cancelK.run();
            }
        }
    }

    /** "trying", "proceeding", "completed" or "terminated". */
    synchronized String state() {
        return state.name().toLowerCase(java.util.Locale.ROOT);
    }

    Message request() {
        return request;
    }

    private void cancelEAndF() {
        if (cancelE != null) {
            cancelE.run();
        }
        if (cancelF != null) {
            cancelF.run();
        }
    }

    /**
     * Timer E: the request again; the next one twice as late, at most T2, in Trying, and T2 later
     * in Proceeding (the next hop is known to have it, so there is no hurry).
     */
    private void timerE(long interval) {
        synchronized (this) {
            if (state != State.TRYING && state != State.PROCEEDING) {
                return;
            }
            long next = state == State.TRYING ? Math.min(2 * interval, SipTimes.T2) : SipTimes.T2;
            cancelE = timers.after(next, () -> timerE(next));
        }
        hop.send(request);
    }

    private void timerF() {
        synchronized (this) {
            if (state != State.TRYING && state != State.PROCEEDING) {
                return;
            }
            state = State.TERMINATED;
            cancelEAndF();
        }
        user.timedOut(this);
        user.terminated(this);
    }

    private void timerK() {
        synchronized (this) {
            if (state != State.COMPLETED) {
                return;
            }
            state = State.TERMINATED;
        }
        user.terminated(this);
    }
}
