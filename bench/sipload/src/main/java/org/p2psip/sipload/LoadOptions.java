package org.p2psip.sipload;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Locale;
import org.p2psip.auth.Algorithm;

/**
 * sipload's command line, each option with its default (README.md has the table).
 *
 * @param attempts    registrations to start; 0: --duration x --rate, or one per user without --duration
 * @param durationSeconds how long to offer load; 0 when --attempts or one per user decides
 * @param timeoutMillis a transaction without a final answer this long fails (Timer F, 64 x T1 by default)
 * @param primeRate   mode refresh: rate of the first registrations of phones without state
 * @param limit       use only the first {@code limit} users of the file; 0: all
 */
public record LoadOptions(InetSocketAddress target, InetSocketAddress bind, Path users, Mode mode, double rate,
                          double durationSeconds, long attempts, Algorithm algorithm, int expires, long t1Millis,
                          long timeoutMillis, double primeRate, int limit, Path state, Path csv, boolean quiet) {

    static final String USAGE = """
            usage: sipload --target HOST:PORT --users FILE.csv --mode plain|first|refresh [options]
              --rate N            registrations started per second, open loop (default 100)
              --duration S        offer load for S seconds (attempts = rate x S)
              --attempts N        start N registrations (default: one per user, without --duration)
              --algorithm A       SHA-256 or MD5: the challenge answered (default SHA-256)
              --bind HOST[:PORT]  local address, in Via and Contact (default: the one toward the target)
              --expires S         Expires of every REGISTER (default 3600)
              --t1-ms MS          SIP timer T1: first retransmission, doubling up to 4 s (default 500)
              --timeout-ms MS     a request unanswered this long fails (default 64 x T1, Timer F)
              --prime-rate N      mode refresh: rate of first registrations for phones without state (default --rate)
              --limit N           only the first N users of the file
              --state FILE        refresh state: read at start if present, written at the end
              --csv FILE          one line per registration: user, start, latency, outcome, retransmissions
              --quiet             no progress lines on stderr
            """;

    /** The options of {@code args}; IllegalArgumentException with what is wrong. */
    public static LoadOptions parse(String... args) {
        InetSocketAddress target = null;
        InetSocketAddress bind = new InetSocketAddress("0.0.0.0", 0);
        Path users = null;
        Path state = null;
        Path csv = null;
        Mode mode = null;
        double rate = 100;
        double duration = 0;
        long attempts = 0;
        Algorithm algorithm = Algorithm.SHA_256;
        int expires = 3600;
        long t1 = 500;
        long timeout = -1;
        double primeRate = -1;
        int limit = 0;
        boolean quiet = false;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--quiet")) {
                quiet = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            String value = args[++i];
            switch (name) {
                case "--target" -> target = address(value, -1);
                case "--bind" -> bind = address(value, 0);
                case "--users" -> users = Path.of(value);
                case "--mode" -> mode = mode(value);
                case "--rate" -> rate = positive(name, Double.parseDouble(value));
                case "--duration" -> duration = positive(name, Double.parseDouble(value));
                case "--attempts" -> attempts = (long) positive(name, Long.parseLong(value));
                case "--algorithm" -> algorithm = Algorithm.named(value).filter(a -> !value.isBlank())
                        .orElseThrow(() -> new IllegalArgumentException("--algorithm: MD5 or SHA-256, not " + value));
                case "--expires" -> expires = Integer.parseInt(value);
                case "--t1-ms" -> t1 = (long) positive(name, Long.parseLong(value));
                case "--timeout-ms" -> timeout = (long) positive(name, Long.parseLong(value));
                case "--prime-rate" -> primeRate = positive(name, Double.parseDouble(value));
                case "--limit" -> limit = (int) positive(name, Integer.parseInt(value));
                case "--state" -> state = Path.of(value);
                case "--csv" -> csv = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (target == null || users == null || mode == null) {
            throw new IllegalArgumentException("--target, --users and --mode are required");
        }
        if (duration > 0 && attempts > 0) {
            throw new IllegalArgumentException("--duration or --attempts, not both");
        }
        return new LoadOptions(target, bind, users, mode, rate, duration, attempts, algorithm, expires, t1,
                timeout > 0 ? timeout : Timing.timerFMillis(t1), primeRate > 0 ? primeRate : rate, limit, state, csv,
                quiet);
    }

    /** How many registrations the measured run starts, for {@code users} phones. */
    long plannedAttempts(int users) {
        if (attempts > 0) {
            return attempts;
        }
        return durationSeconds > 0 ? Math.max(1, Math.round(rate * durationSeconds)) : users;
    }

    private static Mode mode(String value) {
        try {
            return Mode.named(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--mode: plain, first or refresh, not " + value);
        }
    }

    private static double positive(String name, double value) {
        if (!(value > 0)) {
            throw new IllegalArgumentException(name + " must be above 0, not " + value);
        }
        return value;
    }

    /** HOST:PORT (or HOST alone, with {@code defaultPort} >= 0); IPv6 in brackets. */
    static InetSocketAddress address(String text, int defaultPort) {
        String host = text;
        int port = defaultPort;
        int colon = text.lastIndexOf(':');
        if (colon > text.lastIndexOf(']')) {
            host = text.substring(0, colon);
            port = Integer.parseInt(text.substring(colon + 1));
        }
        if (port < 0 || host.isEmpty()) {
            throw new IllegalArgumentException("want HOST:PORT, got " + text);
        }
        return new InetSocketAddress(host.replace("[", "").replace("]", "").toLowerCase(Locale.ROOT), port);
    }
}
