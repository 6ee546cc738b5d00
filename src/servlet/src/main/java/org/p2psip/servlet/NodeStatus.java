package org.p2psip.servlet;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.intake.Intake;
import org.p2psip.metrics.Members;
import org.p2psip.metrics.Metrics;
import org.p2psip.metrics.RecentErrors;
import org.p2psip.metrics.SelfReport;
import org.p2psip.metrics.StatusBoard;

/**
 * The node's meters and its status board: SIP requests by method and the node's own responses by
 * method and status, the DHT's operations ({@link TimedDht}), the node's, the backend's and the
 * intake's counters followed, the share of the ring; what the node says about itself on its
 * status page. The container's HTTP connector serves it ({@link StatusServlet}). Thread-safe.
 */
final class NodeStatus {

    /** Methods counted by name; any other (an extension method) is "other", so that no client can make meters up. */
    private static final Set<String> METHODS = Set.of("REGISTER", "INVITE", "ACK", "BYE", "CANCEL", "OPTIONS",
            "PRACK", "UPDATE", "INFO", "MESSAGE", "SUBSCRIBE", "NOTIFY", "REFER", "PUBLISH");

    private final Metrics metrics = new Metrics();
    private final RecentErrors errors = new RecentErrors(20, System::currentTimeMillis);
    private final Map<String, Counter> requests = new ConcurrentHashMap<>();
    private final Map<String, AtomicReferenceArray<Counter>> responses = new ConcurrentHashMap<>();
    private StatusBoard board;
    private volatile Members members;

    RecentErrors errors() {
        return errors;
    }

    MeterRegistry registry() {
        return metrics.registry();
    }

    void request(String method) {
        String name = METHODS.contains(method) ? method : "other";
        requests.computeIfAbsent(name, m -> Counter.builder("p2psip.sip.requests")
                .description("SIP requests the node received, by method").tag("method", m)
                .register(metrics.registry())).increment();
    }

    /** A response the node itself sent (not one it proxied). */
    void response(String method, int status) {
        String name = METHODS.contains(method) ? method : "other";
        if (status < 100 || status > 699) {
            return; // the container sends no such status; nothing to name a meter by
        }
        AtomicReferenceArray<Counter> byStatus = responses.computeIfAbsent(name, m -> new AtomicReferenceArray<>(600));
        Counter counter = byStatus.get(status - 100);
        if (counter == null) { // a few dozen (method, status) pairs in all: made once each, never per response
            counter = Counter.builder("p2psip.sip.responses")
                    .description("Responses the node sent itself, by request method and status")
                    .tag("method", name).tag("status", Integer.toString(status))
                    .register(metrics.registry());
            byStatus.set(status - 100, counter);
        }
        counter.increment();
    }

    /** Starts sampling and polling; what it follows is read from now on. */
    void start(Config config, String backend, TimedDht dht, RequestCounters counters, Intake intake) {
        MeterRegistry registry = metrics.registry();
        metrics.follow("p2psip.node", counters::snapshot, name -> false);
        metrics.follow("p2psip.dht", dht::metrics, dht.levels()::contains);
        metrics.follow("p2psip.intake", intake::meters, Set.of("shedding", "refused-share-permille", "heap-kept-transactions",
                "heap-register-rate-held", "final-answers-kept")::contains);
        Gauge.builder("p2psip.ring.share", dht, d -> share(d.metrics()))
                .description("Share of the key space this node owns (0 to 1); NaN for a backend without a ring")
                .register(registry);
        Gauge.builder("p2psip.ready", () -> intake.isOpen() ? 1 : 0)
                .description("1 once the node has joined and warmed up and serves clients").register(registry);
        var history = StatusBoard.history()
                .rate("requests", () -> requests.values().stream().mapToDouble(Counter::count).sum())
                .rate("responses_error", this::errorResponses)
                .mean("dht_ms", dht::nanos, dht::operations, 1e-6)
                .rate("dht_failures", dht::failures);
        members = new Members(NodeOptions.list(config.get(ServletOptions.STATUS_MEMBERS)),
                Duration.ofSeconds(1), System::currentTimeMillis);
        String sip = config.get(NodeOptions.SIP_ADDRESS);
        Supplier<String> self = () -> self(sip, backend, intake.isOpen(), dht.metrics());
        board = new StatusBoard(metrics, history, errors, members, self, "p2psip-status");
    }

    /** The node's own responses of status 400 and above so far, from their counters. */
    private double errorResponses() {
        double sum = 0;
        for (AtomicReferenceArray<Counter> byStatus : responses.values()) {
            for (int status = 400; status <= 699; status++) {
                Counter counter = byStatus.get(status - 100);
                sum += counter == null ? 0 : counter.count();
            }
        }
        return sum;
    }

    /**
     * Whether at least {@code nodes} nodes of p2psip.status.members answer their status page (the
     * front, also a member, starts only once the nodes are ready, so it is not waited for).
     */
    boolean nodesUp(int nodes) {
        return members != null && members.nodesUp() >= nodes;
    }

    /**
     * Whether another node of p2psip.status.members already serves clients (this one does not
     * until it has warmed up): this node then joins a running deployment.
     */
    boolean othersServing() {
        return members != null && members.nodesReady() > 0;
    }

    /** How many nodes of p2psip.status.members, this one included, are starting (not ready) now; at least 1. */
    int startingMembers() {
        return members == null ? 1 : Math.max(1, members.notReady());
    }

    /** Null until {@link #start}. */
    StatusBoard board() {
        return board;
    }

    void close() {
        if (board != null) {
            board.close();
        } else {
            metrics.close();
        }
    }

    private static String self(String sip, String backend, boolean open, Map<String, Long> dht) {
        return new SelfReport("node", sip, backend, open, share(dht), first(dht, ".records", ".owned-entries"))
                .json("");
    }

    /** From the backend's {@code *.range.ppm}; NaN when it has none or does not know it yet. */
    private static double share(Map<String, Long> dht) {
        Long ppm = first(dht, ".range.ppm");
        return ppm == null || ppm < 0 ? Double.NaN : ppm / 1e6;
    }

    private static Long first(Map<String, Long> metrics, String... suffixes) {
        for (String suffix : suffixes) {
            for (var e : metrics.entrySet()) {
                if (e.getKey().endsWith(suffix)) {
                    return e.getValue();
                }
            }
        }
        return null;
    }
}
