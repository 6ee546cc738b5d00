package org.p2psip.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What a process serves over HTTP, whoever serves it (the node's container, the front's JDK
 * server): {@code /metrics} (Prometheus' text format), {@code /self.json} (what it says about
 * itself), {@code /status.json} (itself, the deployment as it sees it, its recent rates and
 * errors) and {@code /} (the status page, which draws status.json; everything it needs is served
 * from here: no machine of a deployment need reach the internet). Thread-safe.
 */
public final class StatusBoard implements AutoCloseable {

    /** One answer: status, media type, body. */
    public record Page(int status, String type, byte[] body) {
        static Page of(int status, String type, String body) {
            return new Page(status, type, body.getBytes(StandardCharsets.UTF_8));
        }
    }

    public static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final String JSON_TYPE = "application/json; charset=utf-8";
    private static final byte[] HTML = resource("status.html");

    private final Metrics metrics;
    private final History history;
    private final RecentErrors errors;
    private final Members members;
    private final Supplier<String> self;
    private final ScheduledExecutorService ticks;

    /**
     * {@code self}: this process's self.json. History and members are sampled and polled every
     * {@code everyMillis} on {@code ticks}, which the board shuts down at {@link #close()}.
     */
    public StatusBoard(Metrics metrics, History history, RecentErrors errors, Members members, Supplier<String> self,
                       ScheduledExecutorService ticks, long everyMillis) {
        this.metrics = metrics;
        this.history = history;
        this.errors = errors;
        this.members = members;
        this.self = self;
        this.ticks = ticks;
        ticks.scheduleAtFixedRate(this::tick, 0, everyMillis, TimeUnit.MILLISECONDS);
    }

    private void tick() {
        try {
            history.sample();
            members.poll();
        } catch (RuntimeException e) {
            errors.add("status-sampling-failed", e.toString()); // and go on: a failed tick must not end the schedule
        }
    }

    public Metrics metrics() {
        return metrics;
    }

    public RecentErrors errors() {
        return errors;
    }

    /** The answer to GET {@code path} (the query, if any, already cut off). */
    public Page get(String path) {
        return switch (path) {
            case "/", "/index.html" -> new Page(200, "text/html; charset=utf-8", HTML);
            case "/metrics" -> Page.of(200, PROMETHEUS_TYPE, metrics.scrape());
            case "/self.json" -> Page.of(200, JSON_TYPE, self.get());
            case "/status.json" -> Page.of(200, JSON_TYPE, status());
            default -> Page.of(404, "text/plain; charset=utf-8", "not found: " + path + "\n");
        };
    }

    private String status() {
        return "{\"self\":" + self.get() + ",\"members\":" + members.json() + ",\"history\":" + history.json()
                + ",\"errors\":" + errors.json() + ",\"now\":" + System.currentTimeMillis() + "}";
    }

    private static byte[] resource(String name) {
        try (InputStream in = StatusBoard.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("status page resource missing: " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        ticks.shutdownNow();
        metrics.close();
    }
}
