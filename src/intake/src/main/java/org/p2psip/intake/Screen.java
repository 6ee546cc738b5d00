package org.p2psip.intake;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import java.net.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.function.LongSupplier;
import javax.sip.TransactionState;
import org.p2psip.lazysip.LazyRequest;

/**
 * Judges each datagram a message thread takes, before the stack parses it. Responses, ACK,
 * CANCEL, requests inside a dialog and an overlay's own requests always pass: they finish work
 * already begun; so do the node's own warm-up, and a health probe once the node is open. A new
 * request passes while the node is open, the queue is not late ({@link QueueDelay}), the
 * collector keeps up ({@link CollectorLoad}) and it is not among the share refused to keep
 * requests' time in the node near its target ({@link ResponseDelay}); otherwise it is answered 503 with Retry-After right here, statelessly,
 * from its raw bytes, for a small part of what serving it would cost, and a retransmission of it
 * gets the same 503. A retransmission of a request whose transaction is still at work is dropped
 * (what the stack would do with it, RFC 3261 §17.2.2, without parsing it), and one of a request
 * judged moments ago meets the same fate as the first copy ({@link RecentBranches}). Anything it cannot
 * read by hand passes, and the stack judges it. Thread-safe.
 */
final class Screen {

    /** The state of the stack's server transaction for a branch (lower case), or null if it has none. */
    interface Transactions {
        TransactionState of(String branch);
    }

    /** Sends an answer from the node's own UDP socket. */
    interface Outlet {
        void send(byte[] message, InetSocketAddress to);
    }

    private final Transactions transactions;
    private final Outlet outlet;
    private final LongSupplier millis;
    private final LongSupplier nanos;
    /** What became of the requests of the last seconds, by branch: their retransmissions meet the same. */
    private final RecentBranches<Refusal> recent;

    Screen(Transactions transactions, Outlet outlet, LongSupplier millis, LongSupplier nanos) {
        this.transactions = transactions;
        this.outlet = outlet;
        this.millis = millis;
        this.nanos = nanos;
        this.recent = new RecentBranches<>(nanos.getAsLong());
    }

    /** True when the stack is to process the datagram; false when it was answered or dropped here. */
    boolean passes(DatagramQueuedMessageDispatch queued) {
        long waited = Math.max(0, millis.getAsLong() - queued.getReceptionTime()) * 1_000_000;
        Intake.waited(waited);
        long now = nanos.getAsLong();
        DatagramPacket packet = queued.packet;
        String head = head(packet);
        String branch = head.startsWith("SIP/") ? null : Intake.branchIn(head);
        Refusal earlier = branch == null ? null : recent.get(branch);
        Refusal refusal = earlier != null ? earlier : branch != null && !sipTwo(head) ? Refusal.VERSION : switch (Intake.state()) {
            case STARTING -> Refusal.NOT_READY;
            case STOPPING -> Refusal.STOPPING;
            case OPEN -> Intake.sourceLimit().over(packet.getAddress(), now) ? Refusal.SOURCE
                    : Intake.queueDelay().late(waited, now) ? Refusal.LATE
                    : Intake.collecting() ? Refusal.COLLECTING
                    : Intake.responseDelay().refuseNext() ? Refusal.SLOW : Refusal.NONE;
        };
        boolean passes = refusal == Refusal.NONE || !refused(packet, refusal);
        if (branch != null && earlier == null) {
            recent.put(branch, passes ? Refusal.NONE : refusal, now);
            if (passes && head.startsWith("REGISTER ")) {
                Intake.responseDelay().arrived(branch, now - waited); // timed until the application answers
            }
        }
        return passes;
    }

    /**
     * The datagram's first KiB as text: enough for the request line and the top Via, where the
     * branch is (Via is the first header that carries one).
     */
    private static String head(DatagramPacket packet) {
        return new String(packet.getData(), packet.getOffset(), Math.min(packet.getLength(), 1024),
                java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** Whether a request's first line ends in SIP/2.0 (the version is case-insensitive, RFC 3261 §7.1). */
    static boolean sipTwo(String head) {
        int lineEnd = 0;
        while (lineEnd < head.length() && head.charAt(lineEnd) != '\r' && head.charAt(lineEnd) != '\n') {
            lineEnd++;
        }
        String version = " SIP/2.0";
        return lineEnd >= version.length() && head.regionMatches(true, lineEnd - version.length(), version, 0, version.length());
    }

    private boolean refused(DatagramPacket packet, Refusal refusal) {
        var source = (InetSocketAddress) packet.getSocketAddress();
        if (Intake.exemptSources().contains(source)) {
            return false;
        }
        byte[] data = packet.getData();
        byte[] bytes = Arrays.copyOfRange(data, packet.getOffset(), packet.getOffset() + packet.getLength());
        LazyRequest request = refusal == Refusal.VERSION ? LazyRequest.readAnyVersion(bytes) : LazyRequest.read(bytes);
        if (request == null || request.toTag || request.method.equals("ACK") || request.method.equals("CANCEL")
                || exempt(request) || (refusal.overload() && healthProbe(request))) {
            return false;
        }
        String branch = request.branch.toLowerCase();
        TransactionState transaction = transactions.of(branch);
        if (transaction != null) {
            if (transaction == TransactionState.TRYING) {
                Intake.retransmissionAbsorbed();
                return true;
            }
            return false; // the stack sends the transaction's last answer again
        }
        String retryAfter = refusal.status == 503
                ? "Retry-After: " + retryAfter(Intake.retryAfterSeconds(), request.branch) + "\r\n" : "";
        outlet.send(request.answer(refusal.status, refusal.reason, tagOf(request.branch), source, retryAfter),
                request.answerAddress(source));
        Intake.refused(refusal);
        return true;
    }

    private static boolean exempt(LazyRequest request) {
        for (String header : Intake.exemptHeaders()) {
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
