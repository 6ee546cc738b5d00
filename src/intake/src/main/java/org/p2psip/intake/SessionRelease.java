package org.p2psip.intake;

import javax.servlet.sip.SipServletRequest;
import javax.sip.ServerTransaction;
import org.mobicents.servlet.sip.core.message.MobicentsSipServletMessage;

/**
 * Ends a request's application session once the application has sent its own final answer: the
 * P2PSIP servlet's and the container's ceiling app alike, so that the reference pays what the
 * measured application pays. Beside the intake, since the intake keeps the answers that let the
 * stack end a transaction at once ({@link #forgetOnceAnswered}). The
 * container would otherwise keep session, transaction and messages until Timer J or the session
 * timeout, which is what caps its throughput (docs/container.md). Proxied requests keep
 * theirs: the dialog's later requests need it, and the container ends it when the dialog ends.
 * One per application, over its {@link Intake}. Thread-safe.
 */
public final class SessionRelease {

    /** The T1 whose Timer J the intake's kept answers cover. */
    private static final int MAX_T1_MS = 500;

    private final Intake intake;

    public SessionRelease(Intake intake) {
        this.intake = intake;
    }

    /** After the application's own final answer to the request: its session ends, its transaction lives on alone. */
    public void release(SipServletRequest request) {
        intake.answered(request.getHeader("Via")); // how long requests stay in the node
        try {
            keepServerTransaction(request);
            request.getApplicationSession().invalidate();
        } catch (IllegalStateException alreadyInvalid) {
            // invalidated already: nothing to free
        }
    }

    /**
     * Before the final answer to a request other than INVITE over UDP: the stack may end the
     * server transaction as soon as the answer is sent (Timer J of 64 ms rather than 64 x T1),
     * since the node's intake keeps the answer's bytes and sends them again to a retransmission
     * until Timer J ({@link FinalAnswers}). The transaction, the container's session and its
     * messages so leave the heap at once rather than after 32 s, the few hundred bytes of the
     * answer staying instead of 4.5 KB. Not where the intake does not keep answers (TCP, another
     * intake), nor for a T1 above the 500 ms the intake keeps answers for.
     */
    public void forgetOnceAnswered(SipServletRequest request) {
        if (intake.keepsFinalAnswers() && !"INVITE".equals(request.getMethod())
                && "UDP".equalsIgnoreCase(request.getTransport())
                && request instanceof MobicentsSipServletMessage message
                && message.getTransaction() instanceof ServerTransaction transaction
                && transaction.getRetransmitTimer() <= MAX_T1_MS) {
            try {
                transaction.setRetransmitTimer(1);
            } catch (RuntimeException started) {
                // its timer runs already: it keeps its own Timer J
            }
        }
    }

    /**
     * Takes the request's server transaction out of its SIP session, so that invalidating the
     * session does not terminate it. The container terminates every transaction of a session it
     * invalidates; a terminated transaction drops the client's retransmissions silently, so a UDP
     * client whose 200 was lost would retransmit into silence until it gave up. Kept, the
     * transaction lives its RFC 3261 §17.2.2 life in the SIP stack: it answers retransmissions
     * with the final response until Timer J, then ends by itself. Over TCP Timer J is zero and
     * there are no retransmissions, but keeping it costs nothing either.
     */
    private static void keepServerTransaction(SipServletRequest request) {
        if (request instanceof MobicentsSipServletMessage message
                && message.getTransaction() instanceof ServerTransaction transaction
                && message.getSipSession() != null) {
            message.getSipSession().removeOngoingTransaction(transaction);
            // the container's data on the transaction leads to the request, its session and their
            // messages: dropped, the stack keeps only its own copy of request and final response
            transaction.setApplicationData(null);
        }
    }
}
