package org.p2psip.servlet;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Option;

/** Options of the servlet itself; the registrar's are in RegistrarOptions, the node's in NodeOptions. */
final class ServletOptions {

    static final Option<Duration> BRANCH_TIMEOUT = Option.duration("p2psip.proxy.branch-timeout", Duration.ofSeconds(30), "20s",
            "How long a proxied request waits on one contact before the next (lower q) one is tried.");
    static final Option<Duration> METRICS_INTERVAL = Option.duration("p2psip.metrics.interval", Duration.ofMinutes(1), "10s",
            "How often the node logs its counters (requests, refusals, DHT metrics) when they changed.");

    static final Option<Duration> JOIN_WAIT = Option.duration("p2psip.join-wait", Duration.ofSeconds(30), "60s",
            "How long a starting node waits to join the overlay before it serves anyway (until it joins, requests get 503).");

    static final List<Option<?>> ALL = List.of(BRANCH_TIMEOUT, METRICS_INTERVAL, JOIN_WAIT);

    private ServletOptions() {
    }
}
