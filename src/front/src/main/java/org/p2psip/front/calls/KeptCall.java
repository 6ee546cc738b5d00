package org.p2psip.front.calls;

import java.util.List;
import org.p2psip.front.nodes.Node;

/**
 * One call whose transaction state the front keeps (stateful mode). The front answers the caller
 * itself (100 Trying at once, retransmissions absorbed: {@link InviteServer}), asks its node only
 * for the callee's contacts ({@code Request-Disposition: redirect}, answered 302), and then rings
 * those contacts one after the other in the 302's order (highest q first), record-routing itself
 * so that the ACK, the BYE and every later request of the dialog pass through the front and never
 * reach a node. A contact rings for at most the branch time-out; a failure answer or a time-out
 * moves to the next; the first 2xx ends the search; a 6xx ends it too (RFC 3261 §16.7). When no
 * contact answers 2xx, the caller hears the best of the failure answers (§16.7 step 6).
 *
 * <p>Not thread-safe: every method runs on the front's UDP event loop ({@link KeptCalls}).
 */
final class KeptCall implements InviteServer.User {

    private enum Phase { LOOKUP, RINGING, ANSWERED, DONE }

    private final KeptCalls calls;
    /** The caller's INVITE as received: Max-Forwards spent by one, the front's own Route consumed, no Via of the front's. */
    private final Message invite;
    private final InviteServer server;
    private final Node node;
    /** The caller's TCP or TLS connection, or {@link org.p2psip.front.wire.Destination#UDP}. */
    private final long callerConnection;
    final String key;
    final long startMillis;
    private Phase phase = Phase.LOOKUP;
    /** The transaction ringing now (the lookup's, then each contact's in turn). */
    private InviteClient client;
    /** Every client transaction of the call by branch: a contact given up on may still answer, and its failure answer must be ACKed. */
    private final java.util.Map<String, InviteClient> clients = new java.util.HashMap<>(4);
    /** The CANCELs sent, by the branch they share with their INVITE. */
    private final java.util.Map<String, NonInviteClient> cancels = new java.util.HashMap<>(2);
    private TransactionPeer hop;
    private String branch;
    private List<KeptTarget> targets = List.of();
    private int next;
    private Message best;
    private boolean cancelled;
    private Runnable branchTimer = () -> { };
    /** The caller's connection closed: nothing more can reach it, and the call ends as if it had cancelled. */
    private boolean callerGone;

    KeptCall(KeptCalls calls, String key, Message invite, TransactionPeer caller, long callerConnection, Node node) {
        this.calls = calls;
        this.callerConnection = callerConnection;
        this.key = key;
        this.invite = invite;
        this.node = node;
        this.startMillis = calls.timers().nowMillis();
        this.server = new InviteServer(invite, caller, calls.timers(), this);
    }

    /** Answers 100 Trying and asks the node for the callee's contacts. */
    void start() {
        server.start();
        Message lookup = calls.outgoing(invite, null, callerConnection);
        node.transactionStarted(true);
        ring(lookup, calls.toNode(node), new Lookup());
    }

    /** The caller sent its INVITE again. */
    void retransmitted() {
        server.onRetransmission();
    }

    /** The caller's ACK of a failure answer (hop by hop: it ends the server transaction). */
    void acked() {
        server.onAck();
    }

    /**
     * The caller gave up (its CANCEL, already answered 200 by the front). The ringing contact is
     * CANCELled once it has answered provisionally (RFC 3261 §9.1); before that the CANCEL waits
     * for its first provisional answer, and no further contact is tried.
     */
    void cancel() {
        if (cancelled || phase == Phase.ANSWERED || phase == Phase.DONE) {
            return;
        }
        cancelled = true;
        if (phase == Phase.RINGING && client.proceeding()) {
            cancelBranch();
        }
    }

    /** An answer to one of this call's client transactions; false if it names none of them now. */
    boolean onResponse(String branch, Message response) {
        if ("CANCEL".equals(response.cseqMethod)) {
            NonInviteClient cancel = cancels.get(branch);
            if (cancel != null) {
                cancel.onResponse(response);
            }
            return cancel != null;
        }
        InviteClient transaction = clients.get(branch);
        if (transaction == null) {
            return false;
        }
        if (!"terminated".equals(transaction.state())) {
            transaction.onResponse(response);
        } else if (response.status / 100 == 2 && "INVITE".equals(response.cseqMethod)) {
            relay(response); // a callee's 2xx again: it goes up statelessly (§16.7 step 5)
        }
        return true;
    }

    /** The node of the lookup was found dead: the caller hears 503 now rather than waiting. */
    void nodeLost(Node dead) {
        if (dead == node && phase == Phase.LOOKUP) {
            client.stop();
            node.transactionEnded(true);
            finish(calls.unavailable(invite));
        }
    }

    /** Stops every timer of the call: it is forgotten. */
    void drop() {
        branchTimer.run();
        clients.values().forEach(InviteClient::stop);
        cancels.values().forEach(NonInviteClient::stop);
        if (phase == Phase.LOOKUP) {
            node.transactionEnded(true);
        }
        phase = Phase.DONE;
    }

    private void ring(Message request, TransactionPeer to, InviteClient.User user) {
        branch = request.branch;
        hop = to;
        client = new InviteClient(request, to, calls.timers(), user);
        clients.put(branch, client);
        calls.branchOpened(branch, this);
        client.start();
    }

    /** The next contact, or the best answer to the caller when none is left (or the caller gave up). */
    private void ringNext() {
        branchTimer.run();
        if (cancelled || next >= targets.size()) {
            finish(cancelled ? calls.answer(invite, 487, "Request Terminated") : best != null ? best
                    : calls.answer(invite, 480, "Temporarily Unavailable"));
            return;
        }
        KeptTarget target = targets.get(next++);
        Message request = calls.outgoing(invite, target, callerConnection);
        phase = Phase.RINGING;
        // the timer before the ringing: a contact found unreachable at once moves on, and cancels it
        branchTimer = calls.timers().after(calls.branchTimeoutMillis(), this::branchTimedOut);
        ring(request, calls.toTarget(target), new Contact());
    }

    /**
     * A contact rang for the branch time-out: CANCELled if it answered provisionally (its 487
     * then moves on), else given up silently; after 64 x T1 more without a final answer, given
     * up in any case, as a proxy's Timer C would.
     */
    private void branchTimedOut() {
        if (phase != Phase.RINGING) {
            return;
        }
        InviteClient ringing = client;
        if (ringing.proceeding()) {
            cancelBranch();
            branchTimer = calls.timers().after(64 * SipTimes.T1, () -> {
                if (client == ringing && phase == Phase.RINGING) {
                    ringing.stop();
                    ringNext();
                }
            });
        } else {
            ringing.stop();
            ringNext();
        }
    }

    private void cancelBranch() {
        if (!cancels.containsKey(branch)) {
            cancels.put(branch, calls.cancel(client.cancelRequest(), hop));
        }
    }

    /** A final answer from a contact or from the lookup, kept if it is the best so far (§16.7 step 6). */
    private void consider(Message response) {
        int status = response.status;
        if (status == 503) {
            response = calls.answer(invite, 500, "Server Internal Error"); // §16.7: a 503 is not passed up
            status = 500;
        } else {
            response = calls.withoutOwnVia(response);
        }
        if (response != null && (best == null || rank(status) < rank(best.status))) {
            best = response;
        }
    }

    /** 6xx first, then 4xx, 3xx, 5xx: the classes a caller can act on before a server's own fault. */
    private static int rank(int status) {
        return switch (status / 100) {
            case 6 -> 0;
            case 4 -> 1;
            case 3 -> 2;
            default -> 3;
        };
    }

    private void relay(Message response) {
        Message up = calls.withoutOwnVia(response);
        if (up != null) {
            server.respond(up);
        }
    }

    private void finish(Message response) {
        branchTimer.run();
        phase = Phase.DONE;
        server.respond(response);
        forgetIfCallerGone();
    }

    /** A call whose caller's connection closed is forgotten once its search has ended: no answer can reach the caller. */
    private void forgetIfCallerGone() {
        if (callerGone && (phase == Phase.DONE || phase == Phase.ANSWERED)) {
            calls.forget(this);
        }
    }

    /**
     * The caller's connection closed (an answer could not be sent): the server transaction ends
     * there (RFC 3261 §17.2.4); a contact ringing is CANCELled and no other is tried, as if the
     * caller had cancelled, so that no phone rings for a caller who is gone.
     */
    @Override
    public void connectionLost(InviteServer transaction) {
        calls.stats().keptConnectionsLost.increment();
        callerGone = true;
        cancel();
        forgetIfCallerGone();
    }

    @Override
    public void ackTimedOut(InviteServer transaction) {
        calls.stats().keptAckTimeouts.increment();
    }

    @Override
    public void terminated(InviteServer transaction) {
        calls.forget(this);
    }

    /** The node's answer to the lookup: a 302 with the contacts, or the call's answer when it proxied it after all. */
    private final class Lookup implements InviteClient.User {
        @Override
        public void provisional(InviteClient t, Message r) {
            if (r.status > 100) {
                relay(r); // a node that does not redirect proxies the call itself: it goes on through it
            }
        }

        @Override
        public void finalAnswer(InviteClient t, Message r) {
            node.transactionEnded(true);
            calls.heard(node);
            if (r.status != 302) {
                phase = Phase.ANSWERED;
                relay(r);
                forgetIfCallerGone();
                return;
            }
            targets = KeptTarget.of(r, node, calls::flowNamed);
            calls.stats().statefulCalls.increment();
            if (callerConnection != org.p2psip.front.wire.Destination.UDP
                    || targets.stream().anyMatch(KeptTarget::overFlow)) {
                calls.stats().keptStreamCalls.increment();
            }
            ringNext();
        }

        @Override
        public void timedOut(InviteClient t) {
            node.transactionEnded(true);
            finish(calls.unavailable(invite));
        }
    }

    /** A contact's answers. */
    private final class Contact implements InviteClient.User {
        @Override
        public void provisional(InviteClient t, Message r) {
            if (cancelled && t == client) {
                cancelBranch();
            }
            if (r.status > 100 && phase == Phase.RINGING) {
                relay(r);
            }
        }

        @Override
        public void finalAnswer(InviteClient t, Message r) {
            if (r.status / 100 == 2) {
                branchTimer.run();
                phase = Phase.ANSWERED;
                relay(r);
                forgetIfCallerGone();
                return;
            }
            if (t != client || phase != Phase.RINGING) {
                return; // a branch given up on, answering late
            }
            consider(r);
            if (r.status >= 600) {
                next = targets.size(); // a 6xx ends the search
            }
            ringNext();
        }

        @Override
        public void timedOut(InviteClient t) {
            if (t == client && phase == Phase.RINGING) {
                consider(calls.answer(invite, 408, "Request Timeout"));
                ringNext();
            }
        }

        /** The contact's connection closed before it could be rung: a flow gone (RFC 5626 §5.3), the next contact. */
        @Override
        public void unreachable(InviteClient t) {
            calls.stats().flowsFailed.increment();
            if (t == client && phase == Phase.RINGING) {
                ringNext();
            }
        }
    }
}
