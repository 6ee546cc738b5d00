package org.p2psip.intake;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.p2psip.lazysip.Defect;

/**
 * What the node's UDP intake counts as it judges datagrams: refusals by kind, retransmissions it
 * absorbed or answered, ACKs of its own answers, INVITEs asking for a redirect answered or passed
 * on, the longest wait of a datagram, and the requests taken off the queue with their waits in all.
 * Kept for the life of the SIP stack's UDP processor, whichever application is attached.
 * Thread-safe: adders, read without locks.
 */
final class IntakeCounters {

    private static final Logger LOG = System.getLogger(Intake.class.getName());

    private final Map<Refusal, LongAdder> refusals = new EnumMap<>(Refusal.class);
    private final LongAdder retransmissionsAbsorbed = new LongAdder();
    private final LongAdder retransmissionsAnswered = new LongAdder();
    private final LongAdder acksAbsorbed = new LongAdder();
    private final LongAdder redirectsAnswered = new LongAdder();
    private final LongAdder redirectsPassed = new LongAdder();
    private final Set<Defect> defectsLogged = Collections.synchronizedSet(EnumSet.noneOf(Defect.class));
    private final LongAccumulator longestWaitMicros = new LongAccumulator(Math::max, 0);
    private final LongAdder requestsTaken = new LongAdder();
    private final LongAdder requestsWaitedNanos = new LongAdder();

    IntakeCounters() {
        for (Refusal refusal : Refusal.values()) {
            refusals.put(refusal, new LongAdder());
        }
    }

    /** The next datagram waited {@code nanos} for a message thread; a request's wait adds to {@link #waits()}. */
    void waited(long nanos, boolean request) {
        longestWaitMicros.accumulate(nanos / 1000);
        if (request) {
            requestsTaken.increment();
            requestsWaitedNanos.add(nanos);
        }
    }

    /**
     * What requests waited for a message thread so far. Two sums read one after the other, never
     * locked: a reading may count a request whose wait it does not hold yet, which the next
     * reading makes good; two adders cost each datagram less than a lock.
     */
    Intake.Waits waits() {
        return new Intake.Waits(requestsTaken.sum(), requestsWaitedNanos.sum());
    }

    /**
     * Counts a refusal; the first of each defect (a request that is not valid SIP) is logged
     * with its source, the rest only counted, as the servlet logs its problems.
     */
    void refused(Refusal refusal, Defect defect, InetSocketAddress source) {
        refusals.get(refusal).increment();
        if (defect != null && defectsLogged.add(defect)) {
            LOG.log(Level.WARNING, "intake: a request from {0} answered {1} {2}, not valid SIP (further ones are"
                    + " counted as intake.{3}, not logged)", source, defect.status, defect.reason, refusal.counter);
        }
    }

    void ackAbsorbed() {
        acksAbsorbed.increment();
    }

    void redirectAnswered() {
        redirectsAnswered.increment();
    }

    void redirectPassed() {
        redirectsPassed.increment();
    }

    void retransmissionAnswered() {
        retransmissionsAnswered.increment();
    }

    void retransmissionAbsorbed() {
        retransmissionsAbsorbed.increment();
    }

    /** Every count by its name (a refusal's counter, "retransmissions-absorbed", ...), sorted. */
    Map<String, Long> counts() {
        Map<String, Long> now = new TreeMap<>();
        refusals.forEach((refusal, count) -> {
            if (!refusal.counter.isEmpty()) {
                now.put(refusal.counter, count.sum());
            }
        });
        now.put("retransmissions-absorbed", retransmissionsAbsorbed.sum());
        now.put("retransmissions-answered", retransmissionsAnswered.sum());
        now.put("acks-absorbed", acksAbsorbed.sum());
        now.put("redirects-answered", redirectsAnswered.sum());
        now.put("redirects-passed", redirectsPassed.sum());
        return now;
    }

    /** The longest wait of a datagram since the last call, in microseconds. */
    long longestWaitMicrosThenReset() {
        return longestWaitMicros.getThenReset();
    }
}
