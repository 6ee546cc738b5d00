package org.p2psip.sipload;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
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
 * <li>stale_answered, unchallenged (mode first: 200 without a 401), retransmissions,
 *     retried_503 (REGISTERs sent again after a 503's Retry-After, --retry-503: those 503s failed
 *     nothing, so they are not in statuses), strays (responses to no open transaction);
 * <li>p50_ms, p99_ms: from the first REGISTER sent to the final 200 (a retried one's too, waits
 *     included: what the phone's user waits), completed attempts only
 *     (empty without any); primed: phones given a first registration before a refresh run;
 * <li>transport, connection (tcp, tls: persistent or per-transaction), connection_failures (registrations
 *     whose connection could not open or closed before the final answer: part of failed),
 *     connections_opened, connections_open (at the end), connections_refused, closed_by_server,
 *     keepalive_pings, keepalive_pongs, keepalive_pongs_due (connections whose last ping was unanswered
 *     at the end; pings = pongs + due when no pong was missed), outbound_required (phones whose 200 said Require: outbound),
 *     flow_timers (the 200s' Flow-Timer, SECONDS:PHONES joined by '/'), calls_answered, phones_called,
 *     held_s (how long --hold held), rss_kib (the process's resident memory at the end; empty off Linux);
 * <li>tls_handshakes, tls_handshake_failures (handshakes refused by either side, or cut by the server),
 *     tls_handshake_p50_ms, tls_handshake_p99_ms (from the ClientHello to the handshake's end; empty
 *     without any).
 * </ul>
 */
final class Summary {

    private Summary() {
    }

    /** The whole line: the registrations' fields, then the connections' and the phones'. */
    static String line(LoadOptions options, long attempts, Tally t, long primed, ConnectionTally c,
                       List<Phone> phones, double heldSeconds) {
        return line(options, attempts, t, primed) + " " + connections(options, t, c, phones, heldSeconds);
    }

    private static String connections(LoadOptions options, Tally t, ConnectionTally c, List<Phone> phones,
                                      double heldSeconds) {
        Map<Integer, Long> flowTimers = new TreeMap<>();
        long outbound = 0;
        long called = 0;
        for (Phone p : phones) {
            outbound += p.outboundRequired ? 1 : 0;
            called += p.callsAnswered > 0 ? 1 : 0;
            if (p.flowTimer >= 0) {
                flowTimers.merge(p.flowTimer, 1L, Long::sum);
            }
        }
        long rss = Proc.residentKib();
        return String.format(Locale.ROOT, "transport=%s connection=%s connection_failures=%d connections_opened=%d "
                        + "connections_open=%d connections_refused=%d closed_by_server=%d keepalive_pings=%d "
                        + "keepalive_pongs=%d keepalive_pongs_due=%d outbound_required=%d flow_timers=%s calls_answered=%d phones_called=%d "
                        + "held_s=%.1f rss_kib=%s tls_handshakes=%d tls_handshake_failures=%d tls_handshake_p50_ms=%s "
                        + "tls_handshake_p99_ms=%s",
                options.transport(), options.stream() ? (options.persistent() ? "persistent" : "per-transaction") : "",
                t.connectionFailures, c.opened, c.open, c.refused, c.closedByServer, c.pings, c.pongs, c.pongsDue, outbound,
                joined(flowTimers), callsAnswered(phones), called, heldSeconds, rss < 0 ? "" : Long.toString(rss),
                c.handshakes, c.handshakeFailures, millis(c.handshakeTimes.percentileMillis(50)),
                millis(c.handshakeTimes.percentileMillis(99)));
    }

    static long callsAnswered(List<Phone> phones) {
        long calls = 0;
        for (Phone p : phones) {
            calls += p.callsAnswered;
        }
        return calls;
    }

    private static String joined(Map<Integer, Long> counts) {
        return counts.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue()).collect(Collectors.joining("/"));
    }

    private static String line(LoadOptions options, long attempts, Tally t, long primed) {
        double seconds = attempts / options.rate();
        double span = t.started > 0 ? (t.lastStartNanos - t.firstStartNanos) / 1e9 + 1 / options.rate() : 0;
        double offeredSeconds = Math.max(seconds, span);
        String statuses = joined(t.failedByStatus);
        return String.format(Locale.ROOT, "sipload mode=%s algorithm=%s target=%s:%d rate=%s seconds=%.3f attempts=%d "
                        + "started=%d not_started=%d offered_rate=%.1f completed=%d completed_per_s=%.1f failed=%d "
                        + "timeouts=%d unexpected=%d statuses=%s stale_answered=%d unchallenged=%d retransmissions=%d "
                        + "retried_503=%d strays=%d p50_ms=%s p99_ms=%s primed=%d",
                options.mode().wireName(), options.algorithm().wireName(), options.target().getHostString(),
                options.target().getPort(), number(options.rate()), seconds, attempts, t.started, t.notStarted,
                t.started / offeredSeconds, t.completed, t.completed / offeredSeconds, t.failed(), t.timeouts,
                t.failedByStatusTotal(), statuses, t.staleAnswered, t.unchallenged, t.retransmissions, t.retried503,
                t.strays, millis(t.latencies.percentileMillis(50)), millis(t.latencies.percentileMillis(99)), primed);
    }

    private static String millis(double value) {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.3f", value);
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
