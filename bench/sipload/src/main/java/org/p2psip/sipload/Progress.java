package org.p2psip.sipload;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A line on stderr about once a second while a run goes on, for whoever waits on it (the bench
 * shows it live): "sipload progress" and key=value counters.
 */
final class Progress {
    private static final long PERIOD_NANOS = 1_000_000_000L;
    private final PrintStream out;
    private final String phase;
    private long nextNanos;
    private long originNanos;

    Progress(PrintStream out, String phase) {
        this.out = out;
        this.phase = phase;
    }

    void begin(long now) {
        originNanos = now;
        nextNanos = now + PERIOD_NANOS;
    }

    void maybe(long now, Tally tally) {
        if (out != null && now >= nextNanos) {
            nextNanos += PERIOD_NANOS;
            out.printf(Locale.ROOT, "sipload progress phase=%s elapsed_s=%.1f started=%d completed=%d failed=%d "
                            + "retransmissions=%d%n", phase, (now - originNanos) / 1e9, tally.started, tally.completed,
                    tally.failed(), tally.retransmissions);
            out.flush();
        }
    }
}
