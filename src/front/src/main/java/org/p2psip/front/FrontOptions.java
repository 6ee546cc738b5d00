package org.p2psip.front;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Option;

/**
 * The front's options, declared once. Each may be written in a properties file or given on the
 * command line as {@code --<name after "p2psip.front.", dots as dashes>}, e.g. {@code --probe-interval 1s}.
 */
public final class FrontOptions {

    static final String PREFIX = "p2psip.front.";

    public static final Option<String> LISTEN = Option.string(PREFIX + "listen", "127.0.0.1:5060",
            "127.0.0.1:5060", "SIP address (IP:port) the front listens on, over UDP and TCP; port 0 picks a free one.");
    public static final Option<String> NODES = Option.string(PREFIX + "nodes", "",
            "127.0.0.1:5070,127.0.0.1:5071", "SIP addresses (IP:port) of the nodes behind the front, comma-separated; required.");
    public static final Option<String> NODES_FILE = Option.string(PREFIX + "nodes-file", "",
            "/var/lib/p2psip/front/nodes.txt", "A file of the nodes' SIP addresses (IP:port), one a line, read at start and again within a probe interval of a change: the nodes become those it lists (one left out gets no new request, one added is probed and sent requests once it answers), and the front logs `nodes now` with the list. Empty: the nodes of --nodes, for good.");
    public static final Option<String> POLICY = Option.string(PREFIX + "policy", "tlwl",
            "rr", "How a new Call-ID is given a node: rr, hash, cjsq, tjsq or tlwl (see Policies).");
    public static final Option<Double> INVITE_WEIGHT = Option.decimal(PREFIX + "tlwl.invite.weight", 1.75,
            "2.0", "Work an INVITE transaction counts for under tlwl; every other transaction counts 1.");
    public static final Option<Duration> AFFINITY_TTL = Option.duration(PREFIX + "affinity.ttl", Duration.ofHours(2),
            "30m", "A Call-ID not seen for this long forgets its node (its next request is assigned afresh).");
    public static final Option<Integer> AFFINITY_MAX = Option.integer(PREFIX + "affinity.max", 100_000,
            "1000000", "Most Call-IDs remembered at once; beyond it the least recently seen is forgotten.");
    public static final Option<Integer> TRANSACTIONS_MAX = Option.integer(PREFIX + "transactions.max", 50_000,
            "200000", "Most transactions in flight through the front; beyond it new ones are answered 503 (admission control).");
    public static final Option<Duration> TRANSACTION_TIMEOUT = Option.duration(PREFIX + "transaction.timeout",
            Duration.ofSeconds(32), "16s", "A transaction without a final answer is forgotten after this (RFC 3261 Timer B/F at T1=500ms).");
    public static final Option<Duration> INVITE_TIMEOUT = Option.duration(PREFIX + "invite.timeout",
            Duration.ofMinutes(3), "5m", "An INVITE that got a provisional answer is forgotten after this (RFC 3261 Timer C).");
    public static final Option<Duration> PROBE_INTERVAL = Option.duration(PREFIX + "probe.interval",
            Duration.ofSeconds(1), "500ms", "How often each node is sent an OPTIONS probe.");
    public static final Option<Duration> PROBE_TIMEOUT = Option.duration(PREFIX + "probe.timeout",
            Duration.ofSeconds(3), "2s", "A node from which nothing was heard for this long is down: no new work, its open transactions answered 503.");
    public static final Option<Integer> RETRY_AFTER = Option.integer(PREFIX + "retry.after", 5,
            "10", "Seconds written in the Retry-After of every 503 the front answers itself.");
    public static final Option<Integer> MAX_MESSAGE = Option.integer(PREFIX + "max.message", 65_000,
            "16384", "Largest SIP message in bytes the front accepts (UDP datagram or TCP frame); larger ones are dropped.");
    public static final Option<Integer> THREADS = Option.integer(PREFIX + "threads", 2,
            "4", "Netty event-loop threads of the clients' TCP and TLS connections; the UDP sockets have one more of their own, so that a burst of stream clients never delays the nodes' answers and the probes.");
    public static final Option<Integer> TLS_PORT = Option.integer(PREFIX + "tls.port", 0,
            "5061", "Port on the listen address where the front also accepts SIP over TLS (RFC 3261 §26); 0: no TLS listener.");
    public static final Option<String> TLS_KEY_STORE = Option.string(PREFIX + "tls.key-store", "",
            "/var/lib/p2psip/tls/front.p12", "PKCS#12 file with the front's private key and its certificate chain, signed by the deployment's CA (deploy/p2psip up --tls makes it); required with a TLS port.");
    public static final Option<String> TLS_STORE_PASSWORD = Option.string(PREFIX + "tls.store-password", "",
            "from-deploy", "Password of the TLS key store and of its key (better in the --config file than as a flag, which other users see in ps).");
    public static final Option<Boolean> REUSE_PORT = Option.bool(PREFIX + "reuse-port", false, "true",
            "Whether the listen sockets (UDP, TCP, TLS) are bound with SO_REUSEPORT (Linux, epoll only), so that several front processes share the listen address and the kernel spreads the clients' connections over them; each then needs an inner address of its own.");
    public static final Option<String> INNER = Option.string(PREFIX + "inner", "",
            "127.0.0.1:0", "UDP address (IP:port; port 0 picks a free one) the front talks to the nodes from, names in its Via and in the Path and Record-Route of its flows; empty: the listen address. Fronts sharing a listen address need one each, since the nodes' answers must reach the front that sent the request.");
    public static final Option<String> STATE = Option.string(PREFIX + "state", "stateless",
            "dynamic", "Who keeps the transaction state of new calls: stateless (the nodes: they proxy every call), stateful (the front: the node only hands back the contacts, 302) or dynamic (the front keeps a share of them that follows its own load and the nodes').");
    public static final Option<Duration> BRANCH_TIMEOUT = Option.duration(PREFIX + "branch.timeout",
            Duration.ofSeconds(30), "20s", "In a call the front keeps, how long one contact rings before the next one is tried.");

    public static final Option<String> STATUS = Option.string(PREFIX + "status", "",
            "127.0.0.1:8060", "HTTP address (IP:port) of the front's status page and Prometheus metrics (/, /metrics); empty: none.");
    public static final Option<String> STATUS_MEMBERS = Option.string(PREFIX + "status.members", "",
            "127.0.0.1:8060,127.0.0.1:8070", "HTTP addresses of the deployment's status pages (the nodes', this front's), comma-separated: the processes its status page lists.");
    public static final Option<Integer> WARMUP_REQUESTS = Option.integer(PREFIX + "warmup.requests", 20_000, "0",
            "Query REGISTERs (they store nothing) the front sends through itself to the nodes once one is up, before it says it listens, so that its forwarding path is compiled before clients come; 0: none.");
    public static final Option<Duration> WARMUP_TIMEOUT = Option.duration(PREFIX + "warmup.timeout",
            Duration.ofSeconds(60), "20s", "Longest the warm-up (waiting for a node included) may take; the front listens for clients throughout and says so at the end either way.");

    public static final List<Option<?>> ALL = List.of(LISTEN, NODES, NODES_FILE, POLICY, INVITE_WEIGHT, AFFINITY_TTL,
            AFFINITY_MAX, TRANSACTIONS_MAX, TRANSACTION_TIMEOUT, INVITE_TIMEOUT, PROBE_INTERVAL, PROBE_TIMEOUT,
            RETRY_AFTER, MAX_MESSAGE, THREADS, TLS_PORT, TLS_KEY_STORE, TLS_STORE_PASSWORD, REUSE_PORT, INNER,
            STATE, BRANCH_TIMEOUT, STATUS, STATUS_MEMBERS, WARMUP_REQUESTS, WARMUP_TIMEOUT);

    private FrontOptions() {
    }

    /** The command-line flag of an option: {@code p2psip.front.probe.interval} is {@code --probe-interval}. */
    public static String flag(Option<?> option) {
        return "--" + option.name().substring(PREFIX.length()).replace('.', '-');
    }
}
