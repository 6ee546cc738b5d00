package org.p2psip.servlet;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Option;
import org.p2psip.intake.Intake;

/** Options of the servlet itself; the registrar's are in RegistrarOptions, the node's in NodeOptions. */
final class ServletOptions {

    static final Option<Duration> BRANCH_TIMEOUT = Option.duration("p2psip.proxy.branch-timeout", Duration.ofSeconds(30), "20s",
            "How long the contacts of one q class ring (all at once) before the next, lower q class is tried.");
    static final Option<Duration> METRICS_INTERVAL = Option.duration("p2psip.metrics.interval", Duration.ofMinutes(1), "10s",
            "How often the node logs its counters (requests, refusals, DHT metrics, the intake's `intake.*`) when they changed.");

    static final Option<Duration> JOIN_WAIT = Option.duration("p2psip.join-wait", Duration.ofSeconds(30), "60s",
            "How long a starting node waits to join the overlay before it serves anyway (until it joins, requests get 503).");

    static final Option<Duration> MAX_QUEUE_DELAY = Option.duration("p2psip.intake.max-queue-delay",
            Intake.DEFAULT_MAX_QUEUE_DELAY, "50ms",
            "Longest a new UDP request may wait for a message thread; once the wait has been longer for as long, later ones that waited longer get 503 Overloaded from the intake, before the stack parses them.");
    static final Option<Duration> TARGET_RESPONSE_DELAY = Option.duration("p2psip.intake.target-response-delay",
            Intake.DEFAULT_TARGET_RESPONSE_DELAY, "100ms",
            "How long a REGISTER may stay in the node, from its arrival to the answer; above it the intake refuses a growing share of new requests (503 Overloaded), below it a shrinking one (RFC 8033's rule).");
    static final Option<Double> MAX_COLLECTOR_SHARE = Option.decimal("p2psip.intake.max-collector-share",
            Intake.DEFAULT_MAX_COLLECTOR_SHARE, "0.5",
            "Share of the last second in collector pauses above which the intake refuses every new request (503 Overloaded) until the collector catches up.");
    static final Option<Integer> WARMUP_REQUESTS = Option.integer("p2psip.warmup.requests", 20_000, "5000",
            "REGISTERs a starting node sends itself before it serves, and a quarter as many that its intake refuses (it answers clients 503 Not Ready until then); nodes of p2psip.status.members starting at once share them, each sending its part, since each one's DHT work warms the others too (not on the in-memory backend, whose nodes keep stores of their own). 0: no warm-up.");
    static final Option<Duration> WARMUP_TIMEOUT = Option.duration("p2psip.warmup.timeout", Duration.ofMinutes(3), "5m",
            "Longest a starting node may take to join the overlay, and again, from when the deployment's nodes answer (or p2psip.warmup.members-wait passed), to warm up and settle; past it the node serves anyway and logs a warning.");

    static final Option<Duration> WARMUP_MEMBERS_WAIT = Option.duration("p2psip.warmup.members-wait", Duration.ofMinutes(1), "2m",
            "How long a starting node waits, before its warm-up writes to the overlay, until as many nodes as p2psip.overlay.members names answer among p2psip.status.members (each answers once joined), so that no node joins while warm-up records exist and keeps copies of them; past it the node warms up anyway. It does not wait once another node serves clients (it joins a running deployment, as after a restart: the nodes missing are down, not starting). Without status members, on Bryan (whose nodes join after they start serving) or on the in-memory backend (no overlay), it does not wait.");

    static final Option<Integer> PER_SOURCE_LIMIT = Option.integer("p2psip.limits.per-source", 0, "200",
            "New UDP requests per second one source address may send, as Kamailio's pike counts; past it the rest of that second's get 503 Source Over Limit from the intake; other sources are not affected. 0: no limit. Behind a front, the front is one source.");

    static final Option<String> STATUS_MEMBERS = Option.string("p2psip.status.members", "",
            "127.0.0.1:8070,127.0.0.1:8071",
            "HTTP addresses (host:port) of the deployment's status pages, this node's included, comma-separated: the processes its status page lists, each asked every 2 s. The node's own HTTP port is its container's HTTP connector (deploy/p2psip: SIP port + `--http-offset`). Empty: the page lists none.");

    static final List<Option<?>> ALL = List.of(BRANCH_TIMEOUT, METRICS_INTERVAL, JOIN_WAIT, MAX_QUEUE_DELAY,
            TARGET_RESPONSE_DELAY, MAX_COLLECTOR_SHARE, WARMUP_REQUESTS, WARMUP_TIMEOUT, WARMUP_MEMBERS_WAIT, PER_SOURCE_LIMIT, STATUS_MEMBERS);

    private ServletOptions() {
    }
}
