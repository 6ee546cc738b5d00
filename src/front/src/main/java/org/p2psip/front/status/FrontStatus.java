package org.p2psip.front.status;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.time.Duration;
import java.util.List;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.wire.Addresses;
import org.p2psip.metrics.Json;
import org.p2psip.metrics.Members;
import org.p2psip.metrics.Metrics;
import org.p2psip.metrics.RecentErrors;
import org.p2psip.metrics.SelfReport;
import org.p2psip.metrics.StatusBoard;

/**
 * The front's status page and Prometheus metrics, on the JDK's HTTP server at the status address
 * ({@code p2psip.front.status}), on its own dispatcher thread (a scrape or a page every second or
 * two is all it serves, never on the front's event loops): its counters, and per node whether it is up, its
 * open transactions and calls, and how many the policy chose it for.
 */
public final class FrontStatus implements AutoCloseable {

    private static final Logger LOG = System.getLogger(FrontStatus.class.getName());

    private final HttpServer server;
    private final StatusBoard board;

    private FrontStatus(HttpServer server, StatusBoard board) {
        this.server = server;
        this.board = board;
    }

    /**
     * Serves {@code front}'s page at {@code address} (IP:port), listing the status pages of
     * {@code members} and naming {@code policy}; null when {@code address} is blank (no status page).
     */
    public static FrontStatus start(String address, List<String> members, String policy, Readings front) {
        if (address.isBlank()) {
            return null;
        }
        var metrics = new Metrics();
        meters(metrics, front);
        FrontStats stats = front.stats();
        var history = StatusBoard.history()
                .rate("requests", stats::requestsForwarded)
                .rate("responses_error", () -> stats.answered400() + stats.answered416() + stats.answered483()
                        + stats.answered503() + stats.answered505());
        var pages = new Members(members, Duration.ofSeconds(1), System::currentTimeMillis);
        var board = new StatusBoard(metrics, history, new RecentErrors(20, System::currentTimeMillis), pages,
                () -> self(front, policy), "p2psip-front-status");
        try {
            HttpServer server = HttpServer.create(Addresses.parse(address), 16);
            server.createContext("/", exchange -> serve(board, exchange)); // on the server's own thread
            server.start();
            LOG.log(Level.INFO, "status page on http://{0}/", address);
            return new FrontStatus(server, board);
        } catch (IOException e) {
            board.close();
            throw new UncheckedIOException("cannot serve the status page on " + address + ": " + e.getMessage(), e);
        }
    }

    private static void meters(Metrics metrics, Readings front) {
        MeterRegistry registry = metrics.registry();
        metrics.follow("p2psip.front", front.stats()::snapshot, name -> false);
        for (Node node : front.nodes()) {
            String name = name(node);
            Gauge.builder("p2psip.front.node.up", node, n -> n.up() ? 1 : 0).tag("node", name).register(registry);
            Gauge.builder("p2psip.front.node.transactions", node, Node::transactions).tag("node", name)
                    .description("Open transactions sent to the node").register(registry);
            Gauge.builder("p2psip.front.node.calls", node, Node::calls).tag("node", name).register(registry);
            FunctionCounter.builder("p2psip.front.node.chosen", node, Node::chosen).tag("node", name)
                    .description("Transactions the policy sent to the node").register(registry);
        }
        Gauge.builder("p2psip.front.connections", front, Readings::openConnections).register(registry);
        Gauge.builder("p2psip.front.affinity.entries", front, Readings::affinityEntries).register(registry);
        Gauge.builder("p2psip.front.state.fraction", front, Readings::stateFraction)
                .description("Share of new calls whose transaction state the front keeps").register(registry);
        Gauge.builder("p2psip.front.kept.entries", front, Readings::keptEntries)
                .description("Calls and in-dialog requests whose transaction state the front keeps now").register(registry);
    }

    /** A node as the meters and the page name it: its SIP address. */
    private static String name(Node node) {
        return node.address().getHostString() + ":" + node.address().getPort();
    }

    private static String self(Readings front, String policy) {
        var nodes = new StringBuilder(",\"nodes\":[");
        for (Node node : front.nodes()) {
            nodes.append(nodes.charAt(nodes.length() - 1) == '[' ? "" : ",").append("{\"address\":")
                 .append(Json.string(name(node))).append(",\"up\":").append(node.up())
                 .append(",\"load\":").append(node.transactions()).append(",\"sent\":").append(node.chosen()).append('}');
        }
        String sip = front.address().getHostString() + ":" + front.address().getPort();
        return new SelfReport("front", sip, "policy " + policy, true, Double.NaN, null).json(nodes.append(']').toString());
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

    @Override
    public void close() {
        server.stop(0);
        board.close();
    }
}
