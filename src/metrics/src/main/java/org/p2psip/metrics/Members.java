package org.p2psip.metrics;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The deployment's processes as this one sees them: each member's status address is asked for
 * its {@code /self.json} by {@link #poll()} (the owner calls it at a fixed interval), with a
 * deadline; a member is up while it answers, down from the first poll it does not. Nothing waits:
 * the answers arrive on the client's threads. Thread-safe.
 */
public final class Members {

    /** What a member last said (its self.json, kept as text: the page parses each on its own). */
    private record Seen(boolean up, String self, long at, String error) {
    }

    private final List<String> addresses;
    private final Duration deadline;
    private final LongSupplier clock;
    private final HttpClient client;
    private final ConcurrentHashMap<String, Seen> seen = new ConcurrentHashMap<>();

    /** {@code addresses}: host:port of every member's status page, this process's own included. */
    public Members(List<String> addresses, Duration deadline, LongSupplier clock) {
        this.addresses = List.copyOf(addresses);
        this.deadline = deadline;
        this.clock = clock;
        this.client = HttpClient.newBuilder().connectTimeout(deadline).build(); // its threads are daemons
    }

    public void poll() {
        for (String address : addresses) {
            var request = HttpRequest.newBuilder(URI.create("http://" + address + "/self.json"))
                    .timeout(deadline).GET().build();
            client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, failure) -> {
                long now = clock.getAsLong();
                if (failure != null) {
                    seen.put(address, new Seen(false, null, now, describe(failure)));
                } else if (response.statusCode() != 200) {
                    seen.put(address, new Seen(false, null, now, "HTTP " + response.statusCode()));
                } else {
                    seen.put(address, new Seen(true, response.body(), now, null));
                }
            });
        }
    }

    /** How many members answered, the last time they were asked, that they are a node (not the front). */
    public int nodesUp() {
        int nodes = 0;
        for (Seen s : seen.values()) {
            if (saidNode(s)) {
                nodes++;
            }
        }
        return nodes;
    }

    /** How many members answered that they are a node serving clients (their self.json's "ready" true). */
    public int nodesReady() {
        int ready = 0;
        for (Seen s : seen.values()) {
            if (saidNode(s) && s.self.replace(" ", "").contains("\"ready\":true")) {
                ready++;
            }
        }
        return ready;
    }

    private static boolean saidNode(Seen s) {
        return s.up && s.self != null && s.self.replace(" ", "").contains("\"role\":\"node\"");
    }

    /** How many members answered that they are not ready (their self.json's "ready" false): those starting now. */
    public int notReady() {
        int starting = 0;
        for (Seen s : seen.values()) {
            if (s.up && s.self != null && s.self.replace(" ", "").contains("\"ready\":false")) {
                starting++;
            }
        }
        return starting;
    }

    private static String describe(Throwable failure) {
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /**
     * [{"status":"host:port","state":"up"|"down"|"unknown","self":"<its self.json as a string>",
     * "at":ms,"error":..},...] in the configured order.
     */
    public String json() {
        var out = new StringBuilder("[");
        for (String address : addresses) {
            Seen s = seen.get(address);
            out.append(out.length() > 1 ? "," : "").append("{\"status\":").append(Json.string(address))
               .append(",\"state\":").append(Json.string(s == null ? "unknown" : s.up ? "up" : "down"))
               .append(",\"self\":").append(Json.string(s == null ? null : s.self))
               .append(",\"at\":").append(s == null ? "null" : Long.toString(s.at))
               .append(",\"error\":").append(Json.string(s == null ? null : s.error)).append('}');
        }
        return out.append(']').toString();
    }
}
