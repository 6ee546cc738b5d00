package org.p2psip.intake;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * The application's side of the node's UDP intake: the settings new requests are judged by, and
 * whether the node serves. The application makes one when it starts ({@link #attach}) and owns it
 * until it stops: until {@link #open} the node is starting and every new request gets 503 "Not
 * Ready"; after {@link #close} it is stopping and they get 503 "Stopping". It also reads what the
 * intake counts. Thread-safe.
 */
public final class Intake {

    /** The longest a new request may wait for a message thread before it is refused, unless configured. */
    public static final Duration DEFAULT_MAX_QUEUE_DELAY = Duration.ofMillis(100);
    /** Share of time in collector pauses above which new requests are refused, unless configured. */
    public static final double DEFAULT_MAX_COLLECTOR_SHARE = CollectorLoad.DEFAULT_LIMIT;
    /** How long requests may stay in the node before a growing share of new ones is refused, unless configured. */
    public static final Duration DEFAULT_TARGET_RESPONSE_DELAY = Duration.ofMillis(200);

    /**
     * How new requests are judged: the queueing delay past which they are refused, the response
     * delay around which a share of them is, the share of time in collector pauses above which
     * all are, the Retry-After of those refusals (seconds), and the new requests per second each
     * source address may send while the node is open (past it, the rest of that second's get 503
     * Source Over Limit; 0: no limit).
     */
    public record Settings(Duration maxQueueDelay, Duration targetResponseDelay, double maxCollectorShare,
            long retryAfterSeconds, int perSourceLimit) {

        public static final Settings DEFAULTS = new Settings(DEFAULT_MAX_QUEUE_DELAY, DEFAULT_TARGET_RESPONSE_DELAY,
                DEFAULT_MAX_COLLECTOR_SHARE, 5, 0);
    }

    /**
     * Requests over UDP that message threads took off the stack's queue since the processor
     * started, and how long they waited in it in all (from the reception time the stack stamps, in
     * whole milliseconds): what the node reports as its queueing delay, by the difference of two readings.
     */
    public record Waits(long requests, long nanos) {
    }

    enum State { STARTING, OPEN, STOPPING }

    private final Settings settings;
    private final StackLink link;
    private final SourceLimit sourceLimit;
    private final Set<String> exemptHeaders = new CopyOnWriteArraySet<>();
    private final Set<InetSocketAddress> exemptSources = new CopyOnWriteArraySet<>();
    private volatile State state = State.STARTING;
    private volatile QueueDelay queueDelay;
    private volatile ResponseDelay responseDelay;
    private volatile Directory directory;

    Intake(Settings settings, StackLink link) {
        this.settings = settings;
        this.link = link;
        this.sourceLimit = new SourceLimit(settings.perSourceLimit());
        judgeAfresh();
    }

    /**
     * A starting node's intake, attached to this JVM's SIP stack: its UDP intake judges new
     * requests by {@code settings} and this intake's state from now on, until another is attached.
     */
    public static Intake attach(Settings settings) {
        Intake intake = new Intake(settings, StackLink.THIS_JVM);
        StackLink.THIS_JVM.attach(intake);
        return intake;
    }

    /**
     * The application sent its final answer to the request with this top Via (the value, as the
     * container gives it): how long requests stay in the node is measured so ({@link ResponseDelay}).
     */
    public void answered(String topVia) {
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
    public void exempt(String headerName) {
        exemptHeaders.add(headerName.toLowerCase());
    }

    /**
     * INVITEs out of a dialog that ask for a redirect ({@code Request-Disposition: redirect}) are
     * answered from {@code directory} in the intake from now on, once admitted as any new request
     * is: the stack and the container never see them nor the ACKs of their answers.
     */
    public void answerRedirects(Directory directory) {
        this.directory = directory;
    }

    /** Requests from this address always pass: the node's own warm-up, which runs before it opens. */
    public void exemptSource(InetSocketAddress source) {
        exemptSources.add(source);
    }

    /**
     * The node is ready for ordinary load: new requests are served from now on, judged afresh. The
     * warm-up's answers, slow while the JVM and the overlay were cold, must not count against the
     * first clients: a refused share left over from them turned away the first REGISTERs of a
     * node just opened.
     */
    public void open() {
        judgeAfresh();
        state = State.OPEN;
    }

    /** Queueing and response delays as if nothing had come yet. */
    private void judgeAfresh() {
        queueDelay = new QueueDelay(settings.maxQueueDelay().toNanos());
        responseDelay = new ResponseDelay(settings.targetResponseDelay().toNanos());
    }

    /** Whether the node serves clients: opened, and not stopping. */
    public boolean isOpen() {
        return state == State.OPEN;
    }

    /** The node is stopping: new requests are refused from now on. */
    public void close() {
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
     * the intake's own answers dropped ("acks-absorbed"), INVITEs asking for a redirect answered
     * from the {@link Directory} ("redirects-answered") or passed to the application because it
     * must see them ("redirects-passed"), and the longest wait of a datagram
     * since the last call, in microseconds ("longest-wait-us").
     */
    public Map<String, Long> counters() {
        Map<String, Long> now = meters();
        now.put("longest-wait-us", link.counters().longestWaitMicrosThenReset());
        return now;
    }

    /**
     * {@link #counters()} but the longest wait, which a reading resets (the log's reading, once a
     * minute): what a scrape may read as often as it likes. "shedding",
     * "refused-share-permille", "final-answers-kept" and the heap guard's are levels, the rest counts.
     */
    public Map<String, Long> meters() {
        Map<String, Long> now = link.counters().counts();
        link.levels(now);
        now.put("shedding", queueDelay.shedding() ? 1L : 0L);
        now.put("refused-share-permille", Math.round(responseDelay.refusedShare() * 1000));
        return now;
    }

    /** What requests waited for a message thread so far ({@link Waits}). */
    public Waits waits() {
        return link.counters().waits();
    }

    /** Whether the collector is behind: a node's own background load (its warm-up) should wait. */
    public boolean collecting() {
        return link.collecting();
    }

    /**
     * Whether the node's UDP intake keeps the final answers it sends to requests other than INVITE
     * and answers their retransmissions until Timer J (for T1 up to 500 ms): then the stack's
     * transaction may end as soon as it has sent its answer, and free what it holds.
     */
    public boolean keepsFinalAnswers() {
        return link.keepsFinalAnswers();
    }

    State state() {
        return state;
    }

    /** The directory INVITEs asking for a redirect are answered from, or null: they go to the stack. */
    Directory directory() {
        return directory;
    }

    QueueDelay queueDelay() {
        return queueDelay;
    }

    ResponseDelay responseDelay() {
        return responseDelay;
    }

    SourceLimit sourceLimit() {
        return sourceLimit;
    }

    long retryAfterSeconds() {
        return settings.retryAfterSeconds();
    }

    double maxCollectorShare() {
        return settings.maxCollectorShare();
    }

    Set<String> exemptHeaders() {
        return exemptHeaders;
    }

    Set<InetSocketAddress> exemptSources() {
        return exemptSources;
    }
}
