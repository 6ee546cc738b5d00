package org.p2psip.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
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

    /** How often the history is sampled and the members asked; the page polls as often. */
    public static final long TICK_MILLIS = 2_000;
    private static final int HISTORY_TICKS = 300;
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
     * {@link #TICK_MILLIS} on a daemon thread of its own named {@code thread}, which
     * {@link #close()} ends.
     */
    public StatusBoard(Metrics metrics, History history, RecentErrors errors, Members members, Supplier<String> self,
                       String thread) {
        this.metrics = metrics;
        this.history = history;
        this.errors = errors;
        this.members = members;
        this.self = self;
        this.ticks = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread daemon = new Thread(runnable, thread);
            daemon.setDaemon(true);
            return daemon;
        });
        ticks.scheduleAtFixedRate(this::tick, 0, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Ten minutes of samples, one a tick: what the page's charts span. */
    public static History history() {
        return new History(HISTORY_TICKS, System::currentTimeMillis);
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
