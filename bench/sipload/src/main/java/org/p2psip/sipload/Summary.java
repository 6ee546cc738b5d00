package org.p2psip.sipload;

import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The one machine-readable line a run ends with, on stdout: "sipload" and key=value fields, no
 * spaces inside a value, so that a script splits it on blanks and '='.
 *
 * <ul>
 * <li>rate, seconds: the rate asked and the schedule's length (attempts / rate);
 * <li>attempts, started, not_started: registrations due, started, and due while every phone was busy;
 * <li>offered_rate: started over the time it took to start them (at least the schedule's length):
 *     below the rate asked, the generator could not keep up and the server was not what was measured;
 * <li>completed, completed_per_s (over the same time), failed = timeouts + unexpected + not_started,
 *     statuses (final statuses that failed an attempt, STATUS:COUNT joined by '/');
 * <li>stale_answered, unchallenged (mode first: 200 without a 401), retransmissions, strays
 *     (responses to no open transaction);
 * <li>p50_ms, p99_ms: from the first REGISTER sent to the final 200, completed attempts only
 *     (empty without any); primed: phones given a first registration before a refresh run.
 * </ul>
 */
final class Summary {

    private Summary() {
    }

    static String line(LoadOptions options, long attempts, Tally t, long primed) {
        double seconds = attempts / options.rate();
        double span = t.started > 0 ? (t.lastStartNanos - t.firstStartNanos) / 1e9 + 1 / options.rate() : 0;
        double offeredSeconds = Math.max(seconds, span);
        String statuses = t.failedByStatus.entrySet().stream()
                .map(e -> e.getKey() + ":" + e.getValue()).collect(Collectors.joining("/"));
        return String.format(Locale.ROOT, "sipload mode=%s algorithm=%s target=%s:%d rate=%s seconds=%.3f attempts=%d "
                        + "started=%d not_started=%d offered_rate=%.1f completed=%d completed_per_s=%.1f failed=%d "
                        + "timeouts=%d unexpected=%d statuses=%s stale_answered=%d unchallenged=%d retransmissions=%d "
                        + "strays=%d p50_ms=%s p99_ms=%s primed=%d",
                options.mode().wireName(), options.algorithm().wireName(), options.target().getHostString(),
                options.target().getPort(), number(options.rate()), seconds, attempts, t.started, t.notStarted,
                t.started / offeredSeconds, t.completed, t.completed / offeredSeconds, t.failed(), t.timeouts,
                t.failedByStatusTotal(), statuses, t.staleAnswered, t.unchallenged, t.retransmissions, t.strays,
                millis(t.latencies.percentileMillis(50)), millis(t.latencies.percentileMillis(99)), primed);
    }

    private static String millis(double value) {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.3f", value);
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
