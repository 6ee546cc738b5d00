package org.p2psip.servlet;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.p2psip.intake.Intake;

/**
 * The value of the {@code P2PSIP-Load} header of the node's 200 to an OPTIONS probe, by which a
 * front weighs the nodes: {@code cpu=1.37;cores=2;queue=2.5}, where cpu is the process's CPU time since
 * the previous report over the wall time since it (1.37: one core and a third busy, whatever
 * the machine has), cores the cores the process may use (its affinity), and queue the mean time in milliseconds that requests over UDP waited for
 * one of the stack's message threads since then ({@link Intake#waits}; 0 when none came). A JVM
 * that cannot tell its process's CPU time reports the queue alone.
 *
 * <p>Every front probes every second, so a report is a handful of reads and one compare-and-set:
 * thread-safe, never blocking, O(1). The previous report is the node's, whichever front asked:
 * with two fronts each report covers about half a second. Probes closer together than
 * {@link #MIN_SPAN_NANOS} get the last report again, since CPU time over a few milliseconds of
 * wall time says nothing.
 */
final class LoadReport {

    /** The shortest span a new report covers. */
    static final long MIN_SPAN_NANOS = 100_000_000;

    /**
     * What a report is computed from, each reading cumulative: a monotonic clock, the process's
     * CPU time (negative where the JVM cannot tell), the requests that waited in the queue and
     * their waits in all.
     */
    record Reading(long wallNanos, long cpuNanos, int cores, long requests, long waitedNanos) {
    }

    /** The last report, and the reading it ends at: the next one starts there. */
    private record Last(Reading at, String header) {
    }

    private final Supplier<Reading> meter;
    private final AtomicReference<Last> last;

    /** The first report covers the time from {@code meter}'s first reading, taken now. */
    LoadReport(Supplier<Reading> meter) {
        this.meter = meter;
        Reading start = meter.get();
        this.last = new AtomicReference<>(new Last(start, header(start, start)));
    }

    /** A report of this JVM: its process CPU time, the intake's waits, System.nanoTime. */
    static LoadReport ofThisJvm(Intake intake) {
        var os = ManagementFactory.getOperatingSystemMXBean();
        var cpu = os instanceof com.sun.management.OperatingSystemMXBean sun ? sun : null;
        return new LoadReport(() -> {
            Intake.Waits waits = intake.waits();
            return new Reading(System.nanoTime(), cpu == null ? -1 : cpu.getProcessCpuTime(),
                    Runtime.getRuntime().availableProcessors(), waits.requests(), waits.nanos());
        });
    }

    /** The header value for the time since the previous report. */
    String header() {
        Last before = last.get();
        Reading now = meter.get();
        if (now.wallNanos() - before.at().wallNanos() < MIN_SPAN_NANOS) {
            return before.header();
        }
        String header = header(before.at(), now);
        // a probe that reported meanwhile moved the start on: its report stands, and this one,
        // right for its own span, is answered without becoming the start of the next
        last.compareAndSet(before, new Last(now, header));
        return header;
    }

    /** The report of the span between two readings; without CPU times (a JVM that cannot tell) no cpu. */
    private static String header(Reading from, Reading to) {
        long wall = to.wallNanos() - from.wallNanos();
        long requests = to.requests() - from.requests();
        double queueMillis = requests <= 0 ? 0 : Math.max(0, to.waitedNanos() - from.waitedNanos()) / 1e6 / requests;
        if (from.cpuNanos() < 0 || to.cpuNanos() < 0) {
            return String.format(Locale.ROOT, "queue=%.1f", queueMillis);
        }
        double cpu = wall <= 0 ? 0 : (double) Math.max(0, to.cpuNanos() - from.cpuNanos()) / wall;
        return String.format(Locale.ROOT, "cpu=%.2f;cores=%d;queue=%.1f", cpu, to.cores(), queueMillis);
    }
}
