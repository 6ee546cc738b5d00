package org.p2psip.registrar;

import java.time.Duration;
import java.util.List;
import org.p2psip.config.Option;

/** The registrar's and proxy's options (read from the node's configuration). */
public final class RegistrarOptions {

    public static final Option<Long> MIN_EXPIRES = Option.longInteger("p2psip.registrar.min-expires", 60, "300",
            "Shortest registration accepted, seconds; a shorter non-zero one gets 423 with Min-Expires (RFC 3261 §10.3 step 7).");
    public static final Option<Long> MAX_EXPIRES = Option.longInteger("p2psip.registrar.max-expires", 86400, "7200",
            "Longest registration granted, seconds; a longer one is shortened to it.");
    public static final Option<Long> DEFAULT_EXPIRES = Option.longInteger("p2psip.registrar.default-expires", 3600, "1800",
            "Registration time given to a contact when neither its expires parameter nor the Expires header says, seconds.");
    public static final Option<Integer> MAX_CONTACTS = Option.integer("p2psip.registrar.max-contacts", 32, "8",
            "Most bindings one AOR may hold; a REGISTER that would exceed it gets 403.");
    public static final Option<Duration> RETENTION = Option.duration("p2psip.registrar.retention", Duration.ofDays(1), "7d",
            "How long an AOR is remembered after its last binding expired: within it a call gets 480, after it 404.");
    public static final Option<Boolean> PATH_REQUIRES_SUPPORTED = Option.bool("p2psip.registrar.path-requires-supported", true, "false",
            "Whether a REGISTER with a Path header must carry Supported: path (420 Bad Extension with Unsupported: path otherwise, RFC 3327 §5.3's recommended policy, so that a UA learns a proxy added a Path it cannot see); false stores and echoes the Path anyway.");
    public static final Option<Integer> FLOW_TIMER = Option.integer("p2psip.registrar.flow-timer", 120, "60",
            "Seconds between the keep-alives an outbound client should send on its flow (RFC 5626 §4.4.1): the Flow-Timer of the 200 to a REGISTER that uses outbound; 0 leaves it out.");
    public static final Option<Integer> CAS_ATTEMPTS = Option.integer("p2psip.registrar.cas-attempts", 8, "16",
            "How often the removal of a failed flow's binding (after a 430) reads and writes again when another node wrote the AOR first; then it gives up.");
    public static final Option<Duration> DHT_DEADLINE = Option.duration("p2psip.dht.deadline", Duration.ofSeconds(2), "500ms",
            "Deadline of one REGISTER's or one lookup's whole DHT work; past it the request gets 503 with Retry-After.");
    public static final Option<Integer> MAX_IN_FLIGHT = Option.integer("p2psip.admission.max-in-flight", 2000, "5000",
            "Requests waiting on the DHT at once; beyond it new requests get an immediate 503 (admission control).");
    public static final Option<Long> RETRY_AFTER = Option.longInteger("p2psip.retry-after", 5, "10",
            "Seconds in the Retry-After of every 503 this node sends.");

    public static final Option<String> DOMAINS = Option.string("p2psip.domains", "p2psip.test", "example.com,example.org",
            "Domains the deployment serves, comma-separated, the first the default (that of a request to a user at the node's own address); a REGISTER or a request for another domain gets 403 (a request: unless p2psip.proxy.relay).");

    public static final Option<Boolean> RELAY = Option.bool("p2psip.proxy.relay", false, "true",
            "Whether a request from a user of a served domain for a domain not served is proxied to its Request-URI as it is (an outbound proxy for the deployment's users) rather than refused 403.");

    public static final List<Option<?>> ALL = List.of(MIN_EXPIRES, MAX_EXPIRES, DEFAULT_EXPIRES, MAX_CONTACTS,
            RETENTION, PATH_REQUIRES_SUPPORTED, FLOW_TIMER, CAS_ATTEMPTS, DHT_DEADLINE, MAX_IN_FLIGHT, RETRY_AFTER, DOMAINS, RELAY);

    private RegistrarOptions() {
    }
}
