package org.p2psip.servlet;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * Whether the just-in-time compiler has settled: it spent less than {@link #QUIET_SHARE} of the
 * last {@link #WINDOW_MILLIS} compiling. Not thread-safe: the warm-up's thread asks.
 */
final class JitActivity {

    static final double QUIET_SHARE = 0.1;
    static final long WINDOW_MILLIS = 2000;

    private final LongSupplier compilingMillis;
    private final LongSupplier clock;
    private long windowStart;
    private long compiledAtStart;
    private boolean quiet;

    JitActivity() {
        this(compilingMillis(), System::currentTimeMillis);
    }

    JitActivity(LongSupplier compilingMillis, LongSupplier clock) {
        this.compilingMillis = compilingMillis;
        this.clock = clock;
        this.windowStart = clock.getAsLong();
        this.compiledAtStart = compilingMillis.getAsLong();
    }

    /** True once a whole window passed with little compiling; judged anew each window. */
    boolean quiet() {
        long now = clock.getAsLong();
        if (now - windowStart >= WINDOW_MILLIS) {
            long compiled = compilingMillis.getAsLong();
            quiet = compiled - compiledAtStart < QUIET_SHARE * (now - windowStart);
            windowStart = now;
            compiledAtStart = compiled;
        }
        return quiet;
    }

    /** The JVM's compilation time; always "quiet" where the JVM does not tell it. */
    private static LongSupplier compilingMillis() {
        CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
        if (compiler == null || !compiler.isCompilationTimeMonitoringSupported()) {
            return () -> 0;
        }
        return compiler::getTotalCompilationTime;
    }
}
