package org.p2psip.sipload;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.p2psip.auth.Algorithm;

/**
 * sipload's command line, each option with its default (README.md has the table).
 *
 * @param attempts    registrations to start; 0: --duration x --rate, or one per user without --duration
 * @param durationSeconds how long to offer load; 0 when --attempts or one per user decides
 * @param timeoutMillis a transaction without a final answer this long fails (Timer F, 64 x T1 by default)
 * @param primeRate   mode refresh: rate of the first registrations of phones without state
 * @param limit       use only {@code limit} users of the file; 0: all
 * @param offset      skip the file's first {@code offset} users (several processes share one file)
 * @param transport   "udp", "tcp" or "tls" (below, "tcp" options are those of tls too)
 * @param persistent  tcp: a connection per phone for the whole run (else one per REGISTER)
 * @param sources     tcp: the local addresses connections are bound to, round robin; null: the one toward the target
 * @param outbound    register as RFC 5626 clients (instance, reg-id, Supported: outbound, path)
 * @param keepaliveSeconds tcp persistent: CRLFCRLF every so often; 0: the Flow-Timer of the phone's 200, if any
 * @param holdSeconds tcp persistent: keep the connections this long after the last registration;
 *                    0: until SIGTERM or SIGINT; -1: not at all
 * @param ringMillis  tcp: an INVITE rings this long before its 200 (0: answered at once)
 * @param trustStore  tls: the CA certificates (PEM, or PKCS#12) a server's certificate must chain to;
 *                    null with {@code tlsInsecure}
 * @param trustStorePassword tls: the PKCS#12 trust store's password; null: none
 * @param tlsInsecure tls: accept any server certificate (measurements only)
 * @param retry503    how often a registration refused 503 with Retry-After is sent again after the
 *                    seconds it states, as a phone does (RFC 3261 §21.5.4); 0: the 503 fails it
 */
public record LoadOptions(InetSocketAddress target, InetSocketAddress bind, Path users, Mode mode, double rate,
                          double durationSeconds, long attempts, Algorithm algorithm, int expires, long t1Millis,
                          long timeoutMillis, double primeRate, int limit, Path state, Path csv, boolean quiet,
                          int offset, String transport, boolean persistent, Sources sources, boolean outbound,
                          long keepaliveSeconds, double holdSeconds, long ringMillis, Path trustStore,
                          String trustStorePassword, boolean tlsInsecure, int retry503) {

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
              --limit N           only N users of the file
              --offset N          skip the first N users of the file (processes sharing one file)
              --transport T       udp, tcp or tls (default udp); tls takes every tcp option
              --trust-store FILE  tls: CA certificates, PEM (deploy's <run dir>/tls/ca.pem) or PKCS#12
              --trust-store-password P  tls: the PKCS#12 trust store's password
              --tls-insecure      tls: accept any server certificate (measurements only)
              --connection C      tcp: persistent (one per phone, kept) or per-transaction (default persistent)
              --sources A-B       tcp: bind connections to these IPv4 addresses, round robin (default: toward the target)
              --outbound          RFC 5626 client: +sip.instance and reg-id in Contact, Supported: outbound, path
              --keepalive S       tcp persistent: CRLFCRLF every S s, jittered (default: the 200's Flow-Timer)
              --hold S            tcp persistent: keep connections S s after the last registration (0: until a signal)
              --ring-ms MS        tcp: an INVITE rings MS ms before its 200 (default 0: at once)
              --state FILE        refresh state: read at start if present, written at the end
              --retry-503 N       a registration refused 503 with Retry-After goes again after it, N times at most
                                  (default 0: the 503 fails it)
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
        int retry503 = 0;
        boolean quiet = false;
        var stream = new StreamChoices();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--quiet")) {
                quiet = true;
                continue;
            }
            if (name.equals("--outbound")) {
                stream.outbound = true;
                continue;
            }
            if (name.equals("--tls-insecure")) {
                stream.tlsInsecure = true;
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
                case "--retry-503" -> retry503 = (int) atLeastZero(name, Integer.parseInt(value));
                default -> stream.set(name, value);
            }
        }
        if (target == null || users == null || mode == null) {
            throw new IllegalArgumentException("--target, --users and --mode are required");
        }
        if (duration > 0 && attempts > 0) {
            throw new IllegalArgumentException("--duration or --attempts, not both");
        }
        stream.check();
        return new LoadOptions(target, bind, users, mode, rate, duration, attempts, algorithm, expires, t1,
                timeout > 0 ? timeout : Timing.timerFMillis(t1), primeRate > 0 ? primeRate : rate, limit, state, csv,
                quiet, stream.offset, stream.transport, stream.persistent, stream.sources, stream.outbound,
                stream.keepalive, stream.hold, stream.ringMillis, stream.trustStore, stream.trustStorePassword,
                stream.tlsInsecure, retry503);
    }

    /** Over connections, TCP or TLS: everything but UDP. */
    boolean stream() {
        return !transport.equals("udp");
    }

    boolean tls() {
        return transport.equals("tls");
    }

    /**
     * The options of the TCP and TLS transports and their phones, and --offset; what only makes
     * sense over connections is refused over UDP, the TLS options over anything but TLS.
     */
    private static final class StreamChoices {
        int offset;
        String transport = "udp";
        boolean persistent = true;
        Sources sources;
        boolean outbound;
        long keepalive;
        double hold = -1;
        long ringMillis;
        Path trustStore;
        String trustStorePassword;
        boolean tlsInsecure;
        private final List<String> tcpOnly = new ArrayList<>();

        void set(String name, String value) {
            switch (name) {
                case "--offset" -> offset = (int) atLeastZero(name, Integer.parseInt(value));
                case "--transport" -> transport = transport(value);
                case "--connection" -> persistent = choice(name, value, "persistent", "per-transaction")
                        .equals("persistent");
                case "--sources" -> sources = Sources.parse(value);
                case "--keepalive" -> keepalive = (long) positive(name, Long.parseLong(value));
                case "--hold" -> hold = atLeastZero(name, Double.parseDouble(value));
                case "--ring-ms" -> ringMillis = (long) atLeastZero(name, Long.parseLong(value));
                case "--trust-store" -> trustStore = Path.of(value);
                case "--trust-store-password" -> trustStorePassword = value;
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
            if (!name.equals("--offset") && !name.equals("--transport") && !name.startsWith("--trust-store")) {
                tcpOnly.add(name);
            }
        }

        void check() {
            if (transport.equals("udp") && (!tcpOnly.isEmpty() || outbound)) {
                throw new IllegalArgumentException((tcpOnly.isEmpty() ? "--outbound" : tcpOnly.get(0))
                        + " needs --transport tcp or tls");
            }
            if (!persistent && (keepalive > 0 || hold >= 0)) {
                throw new IllegalArgumentException("--keepalive and --hold need --connection persistent");
            }
            boolean tlsAsked = trustStore != null || trustStorePassword != null || tlsInsecure;
            if (!transport.equals("tls") && tlsAsked) {
                throw new IllegalArgumentException((tlsInsecure ? "--tls-insecure" : "--trust-store")
                        + " needs --transport tls");
            }
            if (transport.equals("tls") && (trustStore == null) == !tlsInsecure) {
                throw new IllegalArgumentException("--transport tls needs --trust-store FILE (the server's CA) "
                        + "or --tls-insecure, not both");
            }
            if (trustStorePassword != null && trustStore == null) {
                throw new IllegalArgumentException("--trust-store-password needs --trust-store");
            }
        }

        private static String transport(String value) {
            if (!List.of("udp", "tcp", "tls").contains(value)) {
                throw new IllegalArgumentException("--transport: udp, tcp or tls, not " + value);
            }
            return value;
        }

        private static String choice(String name, String value, String one, String other) {
            if (!value.equals(one) && !value.equals(other)) {
                throw new IllegalArgumentException(name + ": " + one + " or " + other + ", not " + value);
            }
            return value;
        }
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

    private static double atLeastZero(String name, double value) {
        if (!(value >= 0)) {
            throw new IllegalArgumentException(name + " must be 0 or more, not " + value);
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
