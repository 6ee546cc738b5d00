package org.p2psip.intake;

import java.util.Map;

/**
 * Where the node's UDP intake and the application meet in one JVM. The SIP stack makes its
 * message processors by class name ({@link IntakeProcessorFactory}), so nobody can hand its
 * processor the application's {@link Intake}, and the container may start either first: each
 * side finds the other here. The link holds what the processor's side keeps for the JVM's life
 * (its counters, the final answers kept, the collector's load, the heap guard, and the control
 * thread that samples them) and the {@code Intake} the application attached, whose settings and
 * state judge new requests; until one is attached, a never-opened one with the defaults: the
 * node is starting. The processor uses {@link #THIS_JVM}; a test makes a link of its own.
 * Thread-safe.
 */
final class StackLink {

    /** The link of this JVM's SIP stack: its UDP processor and the application both use this one. */
    static final StackLink THIS_JVM = new StackLink();
    /** How long final answers stay for their retransmissions: Timer J, 64 x T1 (T1 500 ms). */
    static final long FINAL_ANSWER_NANOS = 64 * 500_000_000L;
    /** How often the refused share follows the response delay, and the collector's load is sampled. */
    private static final long CONTROL_MILLIS = 50;

    private final IntakeCounters counters = new IntakeCounters();
    private volatile Intake application = new Intake(Intake.Settings.DEFAULTS, this);
    private volatile CollectorLoad collectorLoad;
    private volatile HeapGuard heapGuard;
    private volatile FinalAnswers finalAnswers;

    IntakeCounters counters() {
        return counters;
    }

    /** The application's intake: new requests are judged by its settings and state from now on. */
    void attach(Intake intake) {
        application = intake;
        CollectorLoad load = collectorLoad;
        if (load != null) {
            load.limit(intake.maxCollectorShare());
        }
    }

    /** The application's intake, or the never-opened one of a node whose application has not started. */
    Intake application() {
        return application;
    }

    /** The JVM's final answers kept for retransmissions: the processor's, made on first use. */
    synchronized FinalAnswers finalAnswers() {
        if (finalAnswers == null) {
            finalAnswers = new FinalAnswers(FINAL_ANSWER_NANOS, System.nanoTime());
        }
        return finalAnswers;
    }

    /** Whether the processor keeps final answers for retransmissions ({@link Intake#keepsFinalAnswers}). */
    boolean keepsFinalAnswers() {
        return finalAnswers != null;
    }

    /**
     * Starts the control thread: every {@value #CONTROL_MILLIS} ms the refused share follows the
     * response delay, every other time the collector's load is sampled, and a collection is asked
     * for when the heap guard has refused on a stale reading ({@link HeapGuard#wantsCollection}).
     * The stack's UDP processor starts it, once the node has one.
     */
    synchronized void watch() {
        if (collectorLoad != null) {
            return;
        }
        collectorLoad = CollectorLoad.ofThisJvm();
        heapGuard = HeapGuard.watchThisJvm(System::nanoTime);
        collectorLoad.limit(application.maxCollectorShare());
        Thread control = new Thread(() -> {
            for (long tick = 0; !Thread.currentThread().isInterrupted(); tick++) {
                try {
                    Thread.sleep(CONTROL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
                control(tick);
            }
        }, "p2psip-intake-control");
        control.setDaemon(true);
        control.start();
    }

    private void control(long tick) {
        application.responseDelay().update(System.nanoTime());
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

    /** Whether the collector is behind: new requests are refused, and a node's own background load should wait. */
    boolean collecting() {
        CollectorLoad load = collectorLoad;
        return load != null && load.overloaded();
    }

    /** Whether a new request taken now could run the heap out ({@link HeapGuard}). */
    boolean heapFull(long now) {
        HeapGuard guard = heapGuard;
        return guard != null && guard.full(now);
    }

    /** A new request went to the stack: its transaction is on the heap until Timer J. */
    void admitted(long now) {
        HeapGuard guard = heapGuard;
        if (guard != null) {
            guard.admitted(now);
        }
    }

    /** The processor's levels beside the counts: final answers kept, the heap guard's readings. */
    void levels(Map<String, Long> into) {
        FinalAnswers answers = finalAnswers;
        if (answers != null) {
            into.put("final-answers-kept", answers.size());
        }
        HeapGuard guard = heapGuard;
        if (guard != null) {
            into.put("heap-kept-transactions", guard.kept());
            into.put("heap-register-rate-held", guard.sustainableRate());
        }
    }
}
