package org.p2psip.intake;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import java.net.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.function.LongSupplier;
import javax.sip.TransactionState;
import org.p2psip.lazysip.Defect;
import org.p2psip.lazysip.LazyRequest;
import org.p2psip.lazysip.RequestSyntax;
import org.p2psip.lazysip.StatelessAnswer;

/**
 * Judges each datagram a message thread takes, before the stack parses it. A request that is not
 * valid SIP ({@link RequestSyntax}) is answered 505, 416 or 400 right here, whatever the node's
 * state: the stack's parser would read some such requests as valid and drop others unanswered.
 * One of an RFC 2543 client is given a branch ({@link Rfc2543Branch}). Responses, ACK,
 * CANCEL, requests inside a dialog and an overlay's own requests always pass: they finish work
 * already begun; so do the node's own warm-up, and a health probe once the node is open. A new
 * request passes while the node is open, the queue is not late ({@link QueueDelay}), the
 * collector keeps up ({@link CollectorLoad}) and it is not among the share refused to keep
 * requests' time in the node near its target ({@link ResponseDelay}); otherwise it is answered
 * 503 with Retry-After right here, statelessly, from its raw bytes, for a small part of what
 * serving it would cost, and a retransmission of it gets the same 503 (and the ACK of an
 * INVITE's refusal ends here). A retransmission of a request whose transaction is still at work
 * is dropped (what the stack would do with it, RFC 3261 §17.2.2, without parsing it), one of a
 * request the node answered finally (not an INVITE) gets that answer again ({@link FinalAnswers}),
 * and one of a request judged moments ago meets the same fate as the first copy ({@link RecentBranches}).
 * An admitted INVITE that asks for a redirect is answered from the application's directory
 * ({@link Redirects}), and the ACK of that answer ends here.
 * Anything it cannot read by hand passes, and the stack judges it. Thread-safe.
 */
final class Screen {

    /** The state of the stack's server transaction for a branch (lower case), or null if it has none. */
    interface Transactions {
        TransactionState of(String branch);
    }

    /** Sends an answer from the node's own UDP socket. */
    interface Destination {
        void send(byte[] message, InetSocketAddress to);
    }

    private final Transactions transactions;
    private final Destination outlet;
    private final LongSupplier millis;
    private final LongSupplier nanos;
    /** What became of the requests of the last seconds, by branch: their retransmissions meet the same. */
    private final RecentBranches<Refusal> recent;
    /** The node's final answers to requests other than INVITE, until Timer J: their retransmissions get them again. */
    private final FinalAnswers answers;
    /** The application's intake (its settings and state), what the processor counts, the heap and collector. */
    private final StackLink link;
    private final IntakeCounters counters;
    /** INVITEs asking for a redirect, answered from the application's directory. */
    private final Redirects redirects;

    Screen(Transactions transactions, Destination outlet, LongSupplier millis, LongSupplier nanos, FinalAnswers answers,
            StackLink link) {
        this.transactions = transactions;
        this.outlet = outlet;
        this.millis = millis;
        this.nanos = nanos;
        this.recent = new RecentBranches<>(nanos.getAsLong());
        this.answers = answers;
        this.link = link;
        this.counters = link.counters();
        this.redirects = new Redirects(outlet, answers, counters, nanos);
    }

    /** True when the stack is to process the datagram; false when it was answered or dropped here. */
    boolean passes(DatagramQueuedMessageDispatch queued) {
        long waited = Math.max(0, millis.getAsLong() - queued.getReceptionTime()) * 1_000_000;
        long now = nanos.getAsLong();
        DatagramPacket packet = queued.packet;
        boolean request = !startsWith(packet, "SIP/");
        counters.waited(waited, request);
        boolean ack = request && startsWith(packet, "ACK ");
        if (request && !ack && !wellFormed(packet, now)) {
            return false;
        }
        String head = head(packet);
        String branch = request ? Intake.branchIn(head) : null;
        if (request && (branch == null || !branch.startsWith("z9hg4bk"))) { // its ACK too, to match it
            byte[] branched = Rfc2543Branch.added(packet.getData(), packet.getOffset(), packet.getLength());
            if (branched != null) {
                packet.setData(branched);
                head = head(packet);
                branch = Intake.branchIn(head);
            }
        }
        if (request && !ack && branch != null && answeredBefore(head, branch, now)) {
            return false;
        }
        Refusal earlier = branch == null ? null : recent.get(branch);
        if (ack && (earlier != null && earlier != Refusal.NONE
                || earlier == null && branch != null && answers.find(branch, "INVITE", now) != null)) {
            counters.ackAbsorbed(); // the ACK of an answer of the intake's own: no transaction awaits it
            return false;
        }
        if (earlier == Refusal.LOOKUP && !ack) {
            counters.retransmissionAbsorbed(); // its redirect is being looked up: the answer is kept for the next one
            return false;
        }
        if (earlier == Refusal.NONE && !ack && stillAtWork(head)) {
            counters.retransmissionAbsorbed();
            return false;
        }
        if (earlier != null && earlier.malformed()) {
            earlier = null; // only its ACK is judged by it; a request is judged by what it is
        }
        Intake intake = link.application();
        Refusal refusal = earlier != null ? earlier : switch (intake.state()) {
            case STARTING -> Refusal.NOT_READY;
            case STOPPING -> Refusal.STOPPING;
            case OPEN -> intake.sourceLimit().over(packet.getAddress(), now) ? Refusal.SOURCE
                    : intake.queueDelay().late(waited, now) ? Refusal.LATE
                    : link.collecting() ? Refusal.COLLECTING
                    : link.heapFull(now) ? Refusal.HEAP
                    : intake.responseDelay().refuseNext() ? Refusal.SLOW : Refusal.NONE;
        };
        if (refusal == Refusal.NONE && earlier == null && branch != null && head.startsWith("INVITE ")
                && intake.directory() != null && Redirects.mayAsk(head)) {
            recent.put(branch, Refusal.LOOKUP, now); // before the lookup starts: a retransmission waits for its answer
            if (redirects.answer(copy(packet), (InetSocketAddress) packet.getSocketAddress(), intake)) {
                return false;
            }
        }
        boolean passes = refusal == Refusal.NONE || !refused(packet, refusal, intake);
        if (branch != null && earlier == null) {
            recent.put(branch, passes ? Refusal.NONE : refusal, now);
            if (passes && !ack) {
                link.admitted(now); // its transaction stays on the heap until Timer J
            }
            if (passes && head.startsWith("REGISTER ")) {
                intake.responseDelay().arrived(branch, now - waited); // timed until the application answers
            }
        }
        return passes;
    }

    /**
     * Whether the request is a retransmission of one the node answered finally (not an INVITE):
     * then the answer goes out again, as its server transaction would send it until Timer J.
     */
    private boolean answeredBefore(String head, String branch, long now) {
        int space = head.indexOf(' ');
        FinalAnswers.Answer answer = space < 0 ? null : answers.find(branch, head.substring(0, space), now);
        if (answer == null) {
            return false;
        }
        outlet.send(answer.message(), answer.to());
        counters.retransmissionAnswered();
        return true;
    }

    /**
     * Whether a retransmission of a request let through moments ago, with no final answer kept
     * for it yet, is of a request still at work: a method other than INVITE, whose answer, once
     * sent, the node keeps for its retransmissions, and other than CANCEL, which shares its
     * INVITE's branch and is a request of its own. Such a retransmission is dropped here, as its
     * transaction would drop it: passed on, it could reach the stack after the answer was sent
     * and the transaction ended (64 ms after the answer), and be taken for a new request (a
     * REGISTER with the same Call-ID and CSeq then failed 500 under load).
     */
    private static boolean stillAtWork(String head) {
        return !head.startsWith("INVITE ") && !head.startsWith("CANCEL ") && !head.startsWith("SIP/");
    }

    /**
     * The queue is over its bound (called by the stack's reader, before queueing): a new request
     * is refused 503 at once and its retransmissions meet the same fate, true; anything else is
     * queued as usual, false, since it finishes work already begun or the stack must judge it.
     */
    boolean overflows(DatagramQueuedMessageDispatch queued) {
        DatagramPacket packet = queued.packet;
        Intake intake = link.application();
        if (startsWith(packet, "SIP/") || startsWith(packet, "ACK ") || intake.state() != Intake.State.OPEN) {
            return false;
        }
        String branch = Intake.branchIn(head(packet));
        if (branch == null || !branch.startsWith("z9hg4bk") || recent.get(branch) == Refusal.NONE) {
            return false;
        }
        if (!refused(packet, Refusal.QUEUE_FULL, intake)) {
            return false;
        }
        recent.put(branch, Refusal.QUEUE_FULL, nanos.getAsLong());
        return true;
    }

    /**
     * Whether a request (not an ACK, which cannot be answered) is valid SIP ({@link RequestSyntax});
     * if not, it is answered here with its defect's status and reason phrase, whatever the
     * node's state, and never reaches the stack, whose parser would read some such requests as
     * valid (any version as 2.0, an unreadable Max-Forwards as none) and drop others unanswered.
     * A request without a Via cannot be answered: the stack drops it, since no answer could reach its sender.
     */
    private boolean wellFormed(DatagramPacket packet, long now) {
        byte[] data = packet.getData();
        int offset = packet.getOffset();
        int length = packet.getLength();
        Defect defect = RequestSyntax.check(data, offset, length);
        if (defect == null || defect == Defect.MISSING_VIA) {
            return true;
        }
        var source = (InetSocketAddress) packet.getSocketAddress();
        StatelessAnswer answer = StatelessAnswer.of(data, offset, length, defect.status, defect.reason,
                "p2psip-" + Integer.toHexString(hash(data, offset, length)), source, "");
        outlet.send(answer.message, answer.to);
        Refusal refusal = Refusal.of(defect);
        counters.refused(refusal, defect, source);
        String branch = Intake.branchIn(head(packet));
        if (branch != null) {
            recent.put(branch, refusal, now); // so that the ACK of an INVITE's answer ends here
        }
        return false;
    }

    /** The same for every retransmission of a request: the To tag of its answer. */
    private static int hash(byte[] data, int offset, int length) {
        int h = 1;
        for (int i = offset; i < offset + length; i++) {
            h = 31 * h + data[i];
        }
        return h;
    }

    private static byte[] copy(DatagramPacket packet) {
        return Arrays.copyOfRange(packet.getData(), packet.getOffset(), packet.getOffset() + packet.getLength());
    }

    private static boolean startsWith(DatagramPacket packet, String prefix) {
        byte[] data = packet.getData();
        int offset = packet.getOffset();
        if (packet.getLength() < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (data[offset + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The datagram's first KiB as text: enough for the request line and the top Via, where the
     * branch is (Via is the first header that carries one).
     */
    private static String head(DatagramPacket packet) {
        return new String(packet.getData(), packet.getOffset(), Math.min(packet.getLength(), 1024),
                java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    private boolean refused(DatagramPacket packet, Refusal refusal, Intake intake) {
        var source = (InetSocketAddress) packet.getSocketAddress();
        if (intake.exemptSources().contains(source)) {
            return false;
        }
        LazyRequest request = LazyRequest.read(copy(packet));
        if (request == null || request.toTag || request.method.equals("ACK") || request.method.equals("CANCEL")
                || exempt(request, intake) || (refusal.overload() && healthProbe(request))) {
            return false;
        }
        String branch = request.branch.toLowerCase();
        TransactionState transaction = transactions.of(branch);
        if (transaction != null) {
            if (transaction == TransactionState.TRYING) {
                counters.retransmissionAbsorbed();
                return true;
            }
            return false; // the stack sends the transaction's last answer again
        }
        String retryAfter = refusal.status == 503
                ? "Retry-After: " + retryAfter(intake.retryAfterSeconds(), request.branch) + "\r\n" : "";
        outlet.send(request.answer(refusal.status, refusal.reason, tagOf(request.branch), source, retryAfter),
                request.answerAddress(source));
        counters.refused(refusal, null, source);
        return true;
    }

    private static boolean exempt(LazyRequest request, Intake intake) {
        for (String header : intake.exemptHeaders()) {
            if (request.lines.find(header, 0) >= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * An OPTIONS to the node itself (no user part in the Request-URI): a front's or an operator's
     * probe, answered by the application even when the node sheds, so that an overloaded node
     * is not taken for a dead one. Before the node opens it gets 503 Not Ready like the rest.
     */
    private static boolean healthProbe(LazyRequest request) {
        String startLine = request.lines.startLine();
        return request.method.equals("OPTIONS") && startLine.indexOf('@') < 0;
    }

    /**
     * Between {@code base} and twice it, the same for every retransmission of one request:
     * clients refused together come back spread over that time rather than all at once, which
     * would only make the next wave of refusals.
     */
    static long retryAfter(long base, String branch) {
        return base + Math.floorMod(branch.toLowerCase().hashCode() * 31L, base + 1);
    }

    /** The To tag of a refusal: the same for every retransmission of one request. */
    static String tagOf(String branch) {
        return "p2psip-" + Integer.toHexString(branch.toLowerCase().hashCode());
    }
}
