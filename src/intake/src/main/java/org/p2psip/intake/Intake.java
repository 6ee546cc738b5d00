package org.p2psip.intake;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.p2psip.lazysip.Defect;

/**
 * What the application tells the node's UDP intake, and what the intake counts. One per JVM: the
 * SIP stack makes its message processors by class name ({@link IntakeProcessorFactory}), so the
 * application cannot hand them an object; it reaches them here. Until {@link #open} the node is
 * starting and every new request gets 503 "Not Ready"; after {@link #close} it is stopping and
 * they get 503 "Stopping". Thread-safe.
 */
public final class Intake {

    /** The longest a new request may wait for a message thread before it is refused, unless configured. */
    public static final Duration DEFAULT_MAX_QUEUE_DELAY = Duration.ofMillis(100);
    /** Share of time in collector pauses above which new requests are refused, unless configured. */
    public static final double DEFAULT_MAX_COLLECTOR_SHARE = CollectorLoad.DEFAULT_LIMIT;
    /** How long requests may stay in the node before a growing share of new ones is refused, unless configured. */
    public static final Duration DEFAULT_TARGET_RESPONSE_DELAY = Duration.ofMillis(200);
    /** How often the refused share follows the response delay, and the collector's load is sampled. */
    private static final long CONTROL_MILLIS = 50;

    enum State { STARTING, OPEN, STOPPING }

    private static final Logger LOG = System.getLogger(Intake.class.getName());

    private static volatile State state = State.STARTING;
    private static volatile long maxQueueDelayNanos = DEFAULT_MAX_QUEUE_DELAY.toNanos();
    private static volatile long targetResponseDelayNanos = DEFAULT_TARGET_RESPONSE_DELAY.toNanos();
    private static volatile QueueDelay queueDelay = new QueueDelay(maxQueueDelayNanos);
    private static volatile ResponseDelay responseDelay = new ResponseDelay(targetResponseDelayNanos);
    private static volatile SourceLimit sourceLimit = new SourceLimit(0);
    private static volatile long retryAfterSeconds = 5;
    private static final Set<String> exemptHeaders = new CopyOnWriteArraySet<>();
    private static final Set<InetSocketAddress> exemptSources = new CopyOnWriteArraySet<>();

    private static volatile CollectorLoad collectorLoad;
    private static volatile HeapGuard heapGuard;
    private static volatile double collectorLimit = CollectorLoad.DEFAULT_LIMIT;
    private static final Map<Refusal, LongAdder> refusals = new EnumMap<>(Refusal.class);
    private static final LongAdder retransmissionsAbsorbed = new LongAdder();
    private static final LongAdder retransmissionsAnswered = new LongAdder();
    private static volatile FinalAnswers finalAnswers;
    /** How long final answers stay for their retransmissions: Timer J, 64 x T1 (T1 500 ms). */
    static final long FINAL_ANSWER_NANOS = 64 * 500_000_000L;
    private static final LongAdder acksAbsorbed = new LongAdder();
    private static final Set<Defect> defectsLogged = java.util.Collections.synchronizedSet(EnumSet.noneOf(Defect.class));
    private static final LongAccumulator longestWaitMicros = new LongAccumulator(Math::max, 0);
    private static final LongAdder requestsTaken = new LongAdder();
    private static final LongAdder requestsWaitedNanos = new LongAdder();

    /**
     * Requests over UDP that message threads took off the stack's queue since the JVM started, and
     * how long they waited in it in all (from the reception time the stack stamps, in whole
     * milliseconds): what the node reports as its queueing delay, by the difference of two readings.
     */
    public record Waits(long requests, long nanos) {
    }

    static {
        for (Refusal refusal : Refusal.values()) {
            refusals.put(refusal, new LongAdder());
        }
    }

    private Intake() {
    }

    /**
     * The queueing delay past which new requests are refused, the response delay around which a
     * share of them is, the share of time in collector pauses above which all are, and the
     * Retry-After of those refusals.
     */
    public static void configure(Duration maxQueueDelay, Duration targetResponseDelay, double maxCollectorShare,
            long retryAfter) {
        maxQueueDelayNanos = maxQueueDelay.toNanos();
        targetResponseDelayNanos = targetResponseDelay.toNanos();
        judgeAfresh();
        collectorLimit = maxCollectorShare;
        CollectorLoad load = collectorLoad;
        if (load != null) {
            load.limit(maxCollectorShare);
        }
        retryAfterSeconds = retryAfter;
    }

    /**
     * New requests per second each source address may send while the node is open; past it, the
     * rest of that second's get 503 Source Over Limit. 0: no limit.
     */
    public static void limitPerSource(int perSecond) {
        sourceLimit = new SourceLimit(perSecond);
    }

    static SourceLimit sourceLimit() {
        return sourceLimit;
    }

    /**
     * The application sent its final answer to the request with this top Via (the value, as the
     * container gives it): how long requests stay in the node is measured so ({@link ResponseDelay}).
     */
    public static void answered(String topVia) {
        String branch = topVia == null ? null : branchIn(topVia);
        if (branch != null) {
            responseDelay.answered(branch, System.nanoTime());
        }
    }

    /** The value of the first {@code ;branch=} in a text (a Via, a message), lower case; null if none. */
    public static String branchIn(String text) {
        int at = text.indexOf(";branch=");
        if (at < 0) {
            return null;
        }
        int end = at + 8;
        while (end < text.length() && ";, \t\r\n".indexOf(text.charAt(end)) < 0) {
            end++;
        }
        return text.substring(at + 8, end).toLowerCase();
    }

    /**
     * Requests carrying this header (an overlay's own messages through the container, say) are
     * never refused: the node needs them to join and to serve. Case-insensitive.
     */
    public static void exempt(String headerName) {
        exemptHeaders.add(headerName.toLowerCase());
    }

    /** Requests from this address always pass: the node's own warm-up, which runs before it opens. */
    public static void exemptSource(InetSocketAddress source) {
        exemptSources.add(source);
    }

    /**
     * The node is ready for ordinary load: new requests are served from now on, judged afresh. The
     * warm-up's answers, slow while the JVM and the overlay were cold, must not count against the
     * first clients: a refused share left over from them turned away the first REGISTERs of a
     * node just opened.
     */
    public static void open() {
        judgeAfresh();
        state = State.OPEN;
    }

    /** Queueing and response delays as if nothing had come yet. */
    private static void judgeAfresh() {
        queueDelay = new QueueDelay(maxQueueDelayNanos);
        responseDelay = new ResponseDelay(targetResponseDelayNanos);
    }

    /** Whether the node serves clients: opened, and not stopping. */
    public static boolean isOpen() {
        return state == State.OPEN;
    }

    /** The node is stopping: new requests are refused from now on. */
    public static void close() {
        state = State.STOPPING;
    }

    /**
     * The intake's counters: requests refused because they waited too long ("refused-late"), the
     * collector could not keep up ("refused-collecting"), the heap could run out ("refused-heap"), the
     * queue was over its bound ("refused-queue-full"), or the node was not open
     * ("refused-not-ready", "refused-stopping"), or because they were not valid SIP
     * ("refused-version" 505, "refused-scheme" 416, "refused-malformed" 400), retransmissions
     * dropped because their transaction was still at work ("retransmissions-absorbed"), retransmissions
     * answered again from the final answers kept ("retransmissions-answered"), ACKs of
     * the intake's own answers dropped ("acks-absorbed"), and the longest wait of a datagram
     * since the last call, in microseconds ("longest-wait-us").
     */
    public static Map<String, Long> counters() {
        Map<String, Long> now = meters();
        now.put("longest-wait-us", longestWaitMicros.getThenReset());
        return now;
    }

    /**
     * {@link #counters()} but the longest wait, which a reading resets (the log's reading, once a
     * minute): what a scrape may read as often as it likes. "shedding" and
     * "refused-share-permille" are levels, the rest counts.
     */
    public static Map<String, Long> meters() {
        Map<String, Long> now = new TreeMap<>();
        refusals.forEach((refusal, count) -> {
            if (refusal != Refusal.NONE) {
                now.put(refusal.counter, count.sum());
            }
        });
        now.put("retransmissions-absorbed", retransmissionsAbsorbed.sum());
        now.put("retransmissions-answered", retransmissionsAnswered.sum());
        FinalAnswers answers = finalAnswers;
        if (answers != null) {
            now.put("final-answers-kept", answers.size());
        }
        now.put("acks-absorbed", acksAbsorbed.sum());
        now.put("shedding", queueDelay.shedding() ? 1L : 0L);
        HeapGuard guard = heapGuard;
        if (guard != null) {
            now.put("heap-kept-transactions", guard.kept());
            now.put("heap-register-rate-held", guard.sustainableRate());
        }
        now.put("refused-share-permille", Math.round(responseDelay.refusedShare() * 1000));
        return now;
    }

    /** Back to the state of a JVM that just started (tests). */
    static void restart() {
        state = State.STARTING;
        exemptHeaders.clear();
        exemptSources.clear();
        refusals.values().forEach(LongAdder::reset);
        retransmissionsAbsorbed.reset();
        retransmissionsAnswered.reset();
        acksAbsorbed.reset();
        requestsTaken.reset();
        requestsWaitedNanos.reset();
        defectsLogged.clear();
        limitPerSource(0);
        configure(DEFAULT_MAX_QUEUE_DELAY, DEFAULT_TARGET_RESPONSE_DELAY, CollectorLoad.DEFAULT_LIMIT, 5);
    }

    static State state() {
        return state;
    }

    static QueueDelay queueDelay() {
        return queueDelay;
    }

    static long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    static Set<String> exemptHeaders() {
        return exemptHeaders;
    }

    static Set<InetSocketAddress> exemptSources() {
        return exemptSources;
    }

    /** The next datagram waited {@code nanos} for a message thread; a request's wait adds to {@link #waits()}. */
    static void waited(long nanos, boolean request) {
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
    public static Waits waits() {
        return new Waits(requestsTaken.sum(), requestsWaitedNanos.sum());
    }

    /**
     * Counts a refusal; the first of each defect (a request that is not valid SIP) is logged
     * with its source, the rest only counted, as the servlet logs its problems.
     */
    static void refused(Refusal refusal, Defect defect, InetSocketAddress source) {
        refusals.get(refusal).increment();
        if (defect != null && defectsLogged.add(defect)) {
            LOG.log(Level.WARNING, "intake: a request from {0} answered {1} {2}, not valid SIP (further ones are"
                    + " counted as intake.{3}, not logged)", source, defect.status, defect.reason, refusal.counter);
        }
    }

    static void ackAbsorbed() {
        acksAbsorbed.increment();
    }

    static ResponseDelay responseDelay() {
        return responseDelay;
    }

    /**
     * Starts the intake's control thread: every {@value #CONTROL_MILLIS} ms the refused share
     * follows the response delay, every other time the collector's load is sampled, and a
     * collection is asked for when the heap guard has refused on a stale reading ({@link HeapGuard#wantsCollection}). The stack's
     * UDP processor starts it, once the node has one.
     */
    static synchronized void watch() {
        if (collectorLoad != null) {
            return;
        }
        collectorLoad = CollectorLoad.ofThisJvm();
        heapGuard = HeapGuard.watchThisJvm(System::nanoTime);
        collectorLoad.limit(collectorLimit);
        Thread control = new Thread(() -> {
            for (long tick = 0; !Thread.currentThread().isInterrupted(); tick++) {
                try {
                    Thread.sleep(CONTROL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
                responseDelay.update(System.nanoTime());
                if (tick % 2 == 1) {
                    collectorLoad.sample();
                }
                FinalAnswers answers = finalAnswers;
                if (answers != null) {
                    answers.expire(System.nanoTime()); // an idle node frees them too
                }
                if (heapGuard.wantsCollection(System.nanoTime())) {
                    System.gc(); // a full collection: what the guard reads next is the heap's live data
                }
            }
        }, "p2psip-intake-control");
        control.setDaemon(true);
        control.start();
    }

    /** Whether the collector is behind: a node's own background load (its warm-up) should wait. */
    public static boolean collecting() {
        CollectorLoad load = collectorLoad;
        return load != null && load.overloaded();
    }

    /** Whether a new request taken now could run the heap out ({@link HeapGuard}). */
    static boolean heapFull(long now) {
        HeapGuard guard = heapGuard;
        return guard != null && guard.full(now);
    }

    /** A new request went to the stack: its transaction is on the heap until Timer J. */
    static void admitted(long now) {
        HeapGuard guard = heapGuard;
        if (guard != null) {
            guard.admitted(now);
        }
    }

    /** The JVM's final answers kept for retransmissions: the intake's, made on first use. */
    static synchronized FinalAnswers finalAnswers() {
        if (finalAnswers == null) {
            finalAnswers = new FinalAnswers(FINAL_ANSWER_NANOS, System.nanoTime());
        }
        return finalAnswers;
    }

    /**
     * Whether the node's UDP intake keeps the final answers it sends to requests other than INVITE
     * and answers their retransmissions until Timer J (for T1 up to 500 ms): then the stack's
     * transaction may end as soon as it has sent its answer, and free what it holds.
     */
    public static boolean keepsFinalAnswers() {
        return finalAnswers != null;
    }

    static void retransmissionAnswered() {
        retransmissionsAnswered.increment();
    }

    static void retransmissionAbsorbed() {
        retransmissionsAbsorbed.increment();
    }
}
