package org.p2psip.front;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.metrics.History;
import org.p2psip.metrics.Json;
import org.p2psip.metrics.Members;
import org.p2psip.metrics.Metrics;
import org.p2psip.metrics.RecentErrors;
import org.p2psip.metrics.StatusBoard;

/**
 * The front's status page and Prometheus metrics, on the JDK's HTTP server at
 * {@link FrontOptions#STATUS} (one thread: a scrape or a page every second or two is all it
 * serves, never on the front's event loops): its counters, and per node whether it is up, its
 * open transactions and calls, and how many the policy chose it for.
 */
final class FrontStatus implements AutoCloseable {

    private static final Logger LOG = System.getLogger(FrontStatus.class.getName());
    private static final long TICK_MILLIS = 2_000;

    private final HttpServer server;
    private final StatusBoard board;

    private FrontStatus(HttpServer server, StatusBoard board) {
        this.server = server;
        this.board = board;
    }

    /** Null when no status address is configured. */
    static FrontStatus start(Config config, Front front) {
        String address = config.get(FrontOptions.STATUS);
        if (address.isBlank()) {
            return null;
        }
        var metrics = new Metrics();
        meters(metrics, front);
        FrontStats stats = front.stats();
        var history = new History(300, System::currentTimeMillis)
                .rate("requests", stats::requestsForwarded)
                .rate("responses_error", () -> stats.answered400() + stats.answered416() + stats.answered483()
                        + stats.answered503() + stats.answered505());
        var members = new Members(NodeOptions.list(config.get(FrontOptions.STATUS_MEMBERS)),
                Duration.ofSeconds(1), System::currentTimeMillis);
        String policy = config.get(FrontOptions.POLICY);
        ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(daemon("p2psip-front-status"));
        var board = new StatusBoard(metrics, history, new RecentErrors(20, System::currentTimeMillis), members,
                () -> self(front, policy), ticks, TICK_MILLIS);
        try {
            HttpServer server = HttpServer.create(Addresses.parse(address), 16);
            server.setExecutor(Executors.newSingleThreadExecutor(daemon("p2psip-front-http")));
            server.createContext("/", exchange -> serve(board, exchange));
            server.start();
            LOG.log(Level.INFO, "status page on http://{0}/", address);
            return new FrontStatus(server, board);
        } catch (IOException e) {
            board.close();
            throw new UncheckedIOException("cannot serve the status page on " + address + ": " + e.getMessage(), e);
        }
    }

    private static void meters(Metrics metrics, Front front) {
        MeterRegistry registry = metrics.registry();
        metrics.follow("p2psip.front", front.stats()::snapshot, name -> false);
        for (Node node : front.nodes()) {
            String name = node.address().getHostString() + ":" + node.address().getPort();
            Gauge.builder("p2psip.front.node.up", node, n -> n.up() ? 1 : 0).tag("node", name).register(registry);
            Gauge.builder("p2psip.front.node.transactions", node, Node::transactions).tag("node", name)
                    .description("Open transactions sent to the node").register(registry);
            Gauge.builder("p2psip.front.node.calls", node, Node::calls).tag("node", name).register(registry);
            FunctionCounter.builder("p2psip.front.node.chosen", node, Node::chosen).tag("node", name)
                    .description("Transactions the policy sent to the node").register(registry);
        }
        Gauge.builder("p2psip.front.connections", front, Front::openConnections).register(registry);
        Gauge.builder("p2psip.front.affinity.entries", front, Front::affinityEntries).register(registry);
    }

    private static String self(Front front, String policy) {
        var nodes = new StringBuilder("[");
        for (Node node : front.nodes()) {
            nodes.append(nodes.length() > 1 ? "," : "").append("{\"address\":")
                 .append(Json.string(node.address().getHostString() + ":" + node.address().getPort()))
                 .append(",\"up\":").append(node.up()).append(",\"load\":").append(node.transactions())
                 .append(",\"sent\":").append(node.chosen()).append('}');
        }
        String sip = front.address().getHostString() + ":" + front.address().getPort();
        return "{\"role\":\"front\",\"name\":" + Json.string("front " + sip) + ",\"sip\":" + Json.string(sip)
                + ",\"backend\":" + Json.string("policy " + policy) + ",\"ready\":true,\"share\":null,\"records\":null"
                + ",\"pid\":" + ProcessHandle.current().pid() + ",\"nodes\":" + nodes.append(']') + "}";
    }

    private static void serve(StatusBoard board, HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            StatusBoard.Page page = board.get(exchange.getRequestURI().getPath());
            exchange.getResponseHeaders().set("Content-Type", page.type());
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            exchange.sendResponseHeaders(page.status(), page.body().length);
            exchange.getResponseBody().write(page.body());
        }
    }

    private static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public void close() {
        server.stop(0);
        board.close();
    }
}
