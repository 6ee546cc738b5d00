package org.p2psip.front.calls;


/**
 * An INVITE server transaction (RFC 3261 §17.2.1, figure 7, with RFC 6026's Accepted state): answers
 * 100 Trying at once, answers a retransmitted INVITE with the last answer, sends a failure answer
 * again on Timer G over an unreliable hop until its ACK comes, and lets a 2xx through as often as
 * the owner passes one.
 *
 * <p>The ACK of a 2xx is not this transaction's (§17.2.1, RFC 6026 §8.7): it is a request of its
 * own, end to end, which the owner forwards statelessly; {@link #onAck} absorbs it in Accepted so
 * that the owner may pass every ACK it matched here without looking at the state.
 *
 * <p>Thread-safe as {@link InviteClient}: state changes under the machine's lock, the hop and the
 * user are called after it is released; a timer that fires after the state moved on does nothing.
 */
final class InviteServer {

    /** What the owner hears of the transaction; called without the machine's lock held. */
    interface User {
        /** Timer H: the failure answer was never acknowledged within 64 x T1 (§17.2.1). */
        void ackTimedOut(InviteServer t);

        /** The machine reached Terminated, once: the owner drops it from its table. */
        void terminated(InviteServer t);

        /**
         * An answer could not be sent: the caller's connection has closed (§17.2.4). The machine
         * is Terminated and sends nothing more; {@link #terminated} is not called.
         */
        default void connectionLost(InviteServer t) {
        }
    }

    private enum State { PROCEEDING, COMPLETED, CONFIRMED, ACCEPTED, TERMINATED }

    private final Message invite;
    private final TransactionPeer hop;
    private final Timers timers;
    private final User user;

    private State state = State.PROCEEDING;
    private boolean started;
    /** The answer a retransmitted INVITE gets in Proceeding: 100 Trying until the owner passes a provisional one. */
    private Message lastProvisional;
    private Message lastFinal;
    private Runnable cancelG;
    private Runnable cancelH;
    private Runnable cancelI;
    private Runnable cancelL;

    InviteServer(Message invite, TransactionPeer hop, Timers timers, User user) {
        if (!"INVITE".equals(invite.method)) {
            throw new IllegalArgumentException("not an INVITE: " + invite.method);
        }
        this.invite = invite;
        this.hop = hop;
        this.timers = timers;
        this.user = user;
    }

    /**
     * Sends 100 Trying, made from the INVITE (its Vias, From, To, Call-ID, CSeq and Timestamp:
     * §8.2.6), with no To tag of the front's: a 100 is hop by hop and the front, a proxy, answers it
     * itself (§16.2) so that the caller stops retransmitting. Once, and not if the owner has
     * already answered; later calls do nothing.
     */
    void start() {
        Message trying;
        synchronized (this) {
            if (started || state != State.PROCEEDING) {
                return;
            }
            started = true;
            if (lastProvisional != null) {
                return; // the owner answered already
            }
            trying = Answers.of(invite, 100, "Trying", null, "");
            lastProvisional = trying;
        }
        sent(trying);
    }

    /** The INVITE came again: the last answer again in Proceeding and Completed, nothing otherwise. */
    void onRetransmission() {
        Message again;
        synchronized (this) {
            again = state == State.PROCEEDING ? lastProvisional : state == State.COMPLETED ? lastFinal : null;
        }
        if (again != null) {
            sent(again);
        }
    }

    /**
     * An answer from the owner: sent if the state allows it - a provisional or a final answer in
     * Proceeding, a 2xx in Accepted (the callee's retransmission, passing through) - and dropped
     * otherwise (§17.2.1: a second final answer in Completed is discarded).
     */
    void respond(Message r) {
        int status = r.status;
        synchronized (this) {
            if (state == State.ACCEPTED && status >= 200 && status < 300) {
                lastFinal = r;
            } else if (state != State.PROCEEDING || status < 100) {
                return;
            } else if (status < 200) {
                lastProvisional = r;
            } else if (status < 300) {
                state = State.ACCEPTED;
                lastFinal = r;
                cancelL = timers.after(SipTimes.TIMEOUT, this::timerL);
            } else {
                state = State.COMPLETED;
                lastFinal = r;
                if (!hop.reliable()) {
                    cancelG = timers.after(SipTimes.T1, () -> timerG(SipTimes.T1));
                }
                cancelH = timers.after(SipTimes.TIMEOUT, this::timerH);
            }
        }
        sent(r);
    }

    /** An ACK matched to this INVITE (§17.2.3): in Completed the failure answer is acknowledged. */
    void onAck() {
        boolean ended = false;
        synchronized (this) {
            if (state != State.COMPLETED) {
                return; // in Accepted: the ACK of a 2xx, the owner's to forward
            }
            state = State.CONFIRMED;
            cancelGAndH();
            if (hop.reliable()) {
                state = State.TERMINATED; // Timer I is zero
                ended = true;
            } else {
                cancelI = timers.after(SipTimes.T4, this::timerI);
            }
        }
        if (ended) {
            user.terminated(this);
        }
    }

    /** Stops every timer and makes the machine Terminated without a word to the user. */
    void stop() {
        synchronized (this) {
            state = State.TERMINATED;
            cancelGAndH();
            for (Runnable cancel : new Runnable[] {cancelI, cancelL}) {
                if (cancel != null) {
                    cancel.run();
                }
            }
        }
    }

    /** "proceeding", "completed", "confirmed", "accepted" or "terminated". */
    synchronized String state() {
        return state.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The last final answer sent (the last 2xx in Accepted), or null before one. */
    synchronized Message lastFinal() {
        return lastFinal;
    }

    Message request() {
        return invite;
    }

    private void cancelGAndH() {
        if (cancelG != null) {
            cancelG.run();
        }
        if (cancelH != null) {
            cancelH.run();
        }
    }

    /** Timer G: the failure answer again, the next one twice as late, at most T2. */
    private void timerG(long interval) {
        Message again;
        synchronized (this) {
            if (state != State.COMPLETED) {
                return;
            }
            long next = Math.min(2 * interval, SipTimes.T2);
            cancelG = timers.after(next, () -> timerG(next));
            again = lastFinal;
        }
        sent(again);
    }

    /** Sends {@code m}; a connection found closed ends the machine's sending. */
    private void sent(Message m) {
        if (hop.send(m)) {
            return;
        }
        synchronized (this) {
            if (state == State.TERMINATED) {
                return;
            }
            state = State.TERMINATED;
            cancelGAndH();
            for (Runnable cancel : new Runnable[] {cancelI, cancelL}) {
                if (cancel != null) {
                    cancel.run();
                }
            }
        }
        user.connectionLost(this);
    }

    private void timerH() {
        synchronized (this) {
            if (state != State.COMPLETED) {
                return;
            }
            state = State.TERMINATED;
            cancelGAndH();
        }
        user.ackTimedOut(this);
        user.terminated(this);
    }

    private void timerI() {
        end(State.CONFIRMED);
    }

    private void timerL() {
        end(State.ACCEPTED);
    }

    private void end(State from) {
        synchronized (this) {
            if (state != from) {
                return;
            }
            state = State.TERMINATED;
        }
        user.terminated(this);
    }
}
