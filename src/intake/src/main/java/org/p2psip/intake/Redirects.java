package org.p2psip.intake;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.p2psip.lazysip.LazyRequest;
import org.p2psip.lazysip.SipLines;

/**
 * INVITEs that ask for a redirect (RFC 3841 §9.1: a stateful front's lookup of the callee's
 * contacts), answered in the intake from the application's {@link Directory}: the final answer
 * (302 with the contacts, 404, 480, 503...) is written from the request's bytes on the thread
 * that completes the lookup, kept by branch with the node's other final answers
 * ({@link FinalAnswers}) so that a retransmitted INVITE gets the very same bytes, and sent. The
 * container's stack never sees the INVITE nor the ACK of its answer (the screen drops that), so
 * neither a transaction nor an application session is made for it: what a redirect costs in the
 * container bounded the calls a node behind a stateful front could look up. Thread-safe.
 */
final class Redirects {

    private static final Logger LOG = System.getLogger(Redirects.class.getName());

    private final Screen.Destination outlet;
    private final FinalAnswers answers;
    private final IntakeCounters counters;
    private final LongSupplier nanos;

    Redirects(Screen.Destination outlet, FinalAnswers answers, IntakeCounters counters, LongSupplier nanos) {
        this.outlet = outlet;
        this.answers = answers;
        this.counters = counters;
        this.nanos = nanos;
    }

    /**
     * Whether the INVITE in {@code bytes}, admitted, is answered here: it asks for a redirect,
     * out of a dialog, requires no extension of the proxy (the application answers 420) and the
     * application's directory takes it. The answer may come later, on the directory's thread;
     * false when the request goes to the stack as any other.
     */
    boolean answer(byte[] bytes, InetSocketAddress source, Intake intake) {
        Directory directory = intake.directory();
        LazyRequest request = directory == null ? null : LazyRequest.read(bytes);
        if (request == null || !request.method.equals("INVITE") || request.toTag || !asked(request.lines)
                || request.lines.find("proxy-require", 0) >= 0) {
            return false;
        }
        CompletionStage<Directory.Answer> found = directory.find(requestUri(request.lines), source);
        if (found == null) {
            counters.redirectPassed();
            return false;
        }
        found.whenComplete((answer, failure) -> send(request, source, answer, failure, intake.retryAfterSeconds()));
        return true;
    }

    /**
     * Whether a request's head (its first KiB) has a line that may be a Request-Disposition: the
     * cheap test that spares every other INVITE a copy and a read. A header past the first KiB
     * is missed, and the request goes to the stack, whose application answers it all the same.
     */
    static boolean mayAsk(String head) {
        for (int line = head.indexOf('\n'); line >= 0 && line + 2 < head.length(); line = head.indexOf('\n', line + 1)) {
            if (head.regionMatches(true, line + 1, "request-disposition", 0, 19)
                    || head.regionMatches(true, line + 1, "d", 0, 1) && " \t:".indexOf(head.charAt(line + 2)) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether a Request-Disposition (or its compact form d) lists the directive redirect, in any letter case. */
    static boolean asked(SipLines lines) {
        for (int h = 0; h < lines.count; h++) {
            if (lines.names[h].equals("request-disposition") || lines.names[h].equals("d")) {
                for (String directive : lines.value(h).split(",")) {
                    if (directive.strip().equalsIgnoreCase("redirect")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Writes, keeps and sends the answer; a failed lookup is 503 with Retry-After. On the thread
     * that completed the lookup, which must not be troubled by a failure here: the client retransmits.
     */
    private void send(LazyRequest request, InetSocketAddress source, Directory.Answer answer, Throwable failure,
            long retryAfterBase) {
        try {
            Directory.Answer sent = failure != null || answer == null ? failed(failure) : answer;
            var extra = new StringBuilder();
            for (String contact : sent.contacts()) {
                extra.append("Contact: ").append(contact).append("\r\n");
            }
            if (sent.status() == 503) {
                extra.append("Retry-After: ").append(Screen.retryAfter(retryAfterBase, request.branch)).append("\r\n");
            }
            byte[] message = request.answer(sent.status(), sent.reason(), Screen.tagOf(request.branch), source,
                    extra.toString());
            InetSocketAddress to = request.answerAddress(source);
            answers.put(request.branch.toLowerCase(), new FinalAnswers.Answer("INVITE", message, to.getAddress(),
                    to.getPort()), nanos.getAsLong());
            counters.redirectAnswered();
            outlet.send(message, to);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "intake: the answer to a redirect INVITE was not sent: {0}", e.toString());
        }
    }

    private static Directory.Answer failed(Throwable failure) {
        Throwable cause = failure != null && failure.getCause() != null ? failure.getCause() : failure;
        return new Directory.Answer(503, cause instanceof TimeoutException ? "Lookup Timeout" : "Lookup Failed",
                java.util.List.of());
    }

    /** The Request-URI of a request line {@code METHOD URI SIP/2.0} (LazyRequest read it so). */
    private static String requestUri(SipLines lines) {
        String line = lines.startLine();
        return line.substring(line.indexOf(' ') + 1, line.lastIndexOf(' '));
    }
}
