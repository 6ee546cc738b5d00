package org.p2psip.front.calls;

import java.util.ArrayList;
import java.util.List;

/**
 * An INVITE client transaction (RFC 3261 §17.1.1, figure 5): sends an INVITE to one hop, sends it
 * again on Timer A over an unreliable hop, and acknowledges a failure answer itself.
 *
 * <p>A 2xx ends the machine at once, as in RFC 3261 (not RFC 6026's Accepted state): its ACK is
 * the caller's, end to end, and a 2xx retransmitted by the callee afterwards finds no machine,
 * so the owner forwards it statelessly (§16.7 step 5 of the proxy). Timer B runs only in Calling:
 * once a provisional answer came the owner ends a branch that never answers with its own Timer C
 * (§16.6 step 11, more than 3 minutes), by {@link #cancelRequest} and {@link #stop}.
 *
 * <p>Thread-safe: state changes under the machine's lock; messages are sent and the user called
 * after the lock is released, on the thread that delivered the answer or fired the timer, so the
 * user may call back into the machine. Two threads' sends may then leave in either order, as
 * datagrams may arrive in either order. A timer that fires after the state moved on does nothing.
 */
final class InviteClient {

    /** What the owner hears of the transaction; called without the machine's lock held. */
    interface User {
        /** A provisional answer, each one (retransmissions too: the owner forwards them upstream). */
        void provisional(InviteClient t, Message r);

        /** The final answer, once: a 2xx, or a failure the machine has already acknowledged. */
        void finalAnswer(InviteClient t, Message r);

        /** Timer B: no answer at all within 64 x T1; the machine is terminated. */
        void timedOut(InviteClient t);

        /**
         * The INVITE could not be sent: the connection to the hop has closed (§17.1.4, a transport
         * error); the machine is terminated. By default what Timer B would say.
         */
        default void unreachable(InviteClient t) {
            timedOut(t);
        }

        /** The machine reached Terminated (not by {@link #stop}); the owner may forget it. Once. */
        default void terminated(InviteClient t) {
        }
    }

    private enum State { CALLING, PROCEEDING, COMPLETED, TERMINATED }

    private final Message request;
    private final TransactionPeer hop;
    private final Timers timers;
    private final User user;

    private State state = State.CALLING;
    private boolean started;
    private Runnable cancelA;
    private Runnable cancelB;
    private Runnable cancelD;
    /** The ACK of the failure answer, sent again for each retransmission of that answer. */
    private Message ack;

    InviteClient(Message request, TransactionPeer hop, Timers timers, User user) {
        if (!"INVITE".equals(request.method)) {
            throw new IllegalArgumentException("not an INVITE: " + request.method);
        }
        this.request = request;
        this.hop = hop;
        this.timers = timers;
        this.user = user;
    }

    /** Sends the INVITE and starts Timers A (unreliable hop only) and B. Once; later calls do nothing. */
    void start() {
        synchronized (this) {
            if (started || state != State.CALLING) {
                return;
            }
            started = true;
            if (!hop.reliable()) {
                cancelA = timers.after(SipTimes.T1, () -> timerA(SipTimes.T1));
            }
            cancelB = timers.after(SipTimes.TIMEOUT, this::timerB);
        }
        if (!hop.send(request)) {
            synchronized (this) {
                state = State.TERMINATED;
                cancelAAndB();
            }
            user.unreachable(this);
        }
    }

    /** An answer whose Via branch and CSeq method match this transaction (§17.1.3). */
    void onResponse(Message r) {
        int status = r.status;
        List<Runnable> then = new ArrayList<>(3);
        synchronized (this) {
            if (status < 100 || state == State.TERMINATED) {
                return;
            }
            if (status < 200) {
                if (state == State.CALLING) {
                    state = State.PROCEEDING;
                    cancelAAndB();
                }
                if (state == State.PROCEEDING) {
                    then.add(() -> user.provisional(this, r));
                }
            } else if (status < 300) {
                if (state == State.COMPLETED) {
                    return; // a 2xx after a failure answer: nothing of this transaction's
                }
                state = State.TERMINATED;
                cancelAAndB();
                then.add(() -> user.finalAnswer(this, r));
                then.add(() -> user.terminated(this));
            } else if (state == State.COMPLETED) {
                Message again = ack; // the failure answer again: its ACK was lost
                then.add(() -> hop.send(again));
            } else {
                state = State.COMPLETED;
                cancelAAndB();
                Message first = errorAck(r);
                ack = first;
                then.add(() -> hop.send(first));
                then.add(() -> user.finalAnswer(this, r));
                if (hop.reliable()) {
                    state = State.TERMINATED; // Timer D is zero: no answer is retransmitted over a reliable hop
                    then.add(() -> user.terminated(this));
                } else {
                    cancelD = timers.after(SipTimes.TIMER_D, this::timerD);
                }
            }
        }
        then.forEach(Runnable::run);
    }

    /**
     * True while a provisional answer was heard and no final one: only then may the INVITE be
     * cancelled (§9.1); the owner that wants to cancel earlier waits for the provisional answer.
     */
    synchronized boolean proceeding() {
        return state == State.PROCEEDING;
    }

    /**
     * The CANCEL of this INVITE (§9.1): its Request-URI, Call-ID, To, From and CSeq number with the
     * method CANCEL, its top Via only (the same branch, so the next hop matches it to the INVITE),
     * its Route, and Max-Forwards 70. It is a transaction of its own: the owner sends it with a
     * {@link NonInviteClient}.
     */
    Message cancelRequest() {
        return CancelAndAck.cancel(request);
    }

    /** Stops every timer and makes the machine Terminated without a word to the user: the branch is abandoned. */
    void stop() {
        synchronized (this) {
            state = State.TERMINATED;
            cancelAAndB();
            if (cancelD != null) {
                cancelD.run();
            }
        }
    }

    /** "calling", "proceeding", "completed" or "terminated". */
    synchronized String state() {
        return state.name().toLowerCase(java.util.Locale.ROOT);
    }

    Message request() {
        return request;
    }

    /** The ACK of a failure answer (§17.1.1.3), written from the INVITE's bytes and the answer's To ({@link CancelAndAck}). */
    private Message errorAck(Message answer) {
        return CancelAndAck.ack(request, answer);
    }

    private void cancelAAndB() {
        if (cancelA != null) {
            cancelA.run();
        }
        if (cancelB != null) {
            cancelB.run();
        }
    }

    /** Timer A: the INVITE again, and the next one twice as late (no cap: Timer B ends it). */
    private void timerA(long interval) {
        synchronized (this) {
            if (state != State.CALLING) {
                return;
            }
            cancelA = timers.after(2 * interval, () -> timerA(2 * interval));
        }
        hop.send(request);
    }

    private void timerB() {
        synchronized (this) {
            if (state != State.CALLING) {
                return;
            }
            state = State.TERMINATED;
            cancelAAndB();
        }
        user.timedOut(this);
        user.terminated(this);
    }

    private void timerD() {
        synchronized (this) {
            if (state != State.COMPLETED) {
                return;
            }
            state = State.TERMINATED;
        }
        user.terminated(this);
    }
}
