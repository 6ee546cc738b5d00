package org.p2psip.sipload;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * SIGTERM and SIGINT as a request to stop: the JVM's shutdown hook sets the flag and wakes the
 * load's thread, which ends what it runs, prints its summary and {@link #exit exits}; the hook
 * waits for that and then ends the process with the load's exit code (a JVM stopped by a signal
 * would otherwise exit 143 or 130, and System.exit cannot be called once shutdown began).
 */
final class Stop {
    /** How long the hook waits for the summary before the JVM ends anyway. */
    private static final long GRACE_SECONDS = 30;
    private volatile boolean requested;
    private volatile Runnable wake = () -> { };
    private volatile int exitCode = 1;
    private final CountDownLatch summarized = new CountDownLatch(1);

    /** A stop nobody can request (the tests', and UDP's, which keeps the JVM's own signal handling). */
    static Stop never() {
        return new Stop();
    }

    /** A stop that SIGTERM and SIGINT request. */
    static Stop onSignals(PrintStream out) {
        var stop = new Stop();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop.hook(out), "sipload-stop"));
        return stop;
    }

    boolean requested() {
        return requested;
    }

    /** What wakes the load's thread from its wait (the transport's selector). */
    void wakeWith(Runnable wake) {
        this.wake = wake;
    }

    /** Ends the process with {@code code}, whether or not a signal asked for it. */
    void exit(int code) {
        exitCode = code;
        summarized.countDown();
        System.exit(code); // blocks forever when shutdown already began: then the hook halts with the code
    }

    private void hook(PrintStream out) {
        if (summarized.getCount() == 0) {
            return; // an ordinary exit
        }
        requested = true;
        wake.run();
        try {
            summarized.await(GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        out.flush();
        Runtime.getRuntime().halt(exitCode);
    }
}
