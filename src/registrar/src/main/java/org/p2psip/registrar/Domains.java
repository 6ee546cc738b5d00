package org.p2psip.registrar;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.p2psip.config.Config;
import org.p2psip.config.HostPort;
import org.p2psip.config.NodeOptions;

/**
 * The domains a deployment serves ({@code p2psip.domains}), the first of them its default. A
 * URI's host names its domain, in lower case; the node's own SIP address names the default
 * domain, as other proxies treat a request to their own address: {@code sip:bob@127.0.0.1:5070}
 * is bob of the default domain.
 */
public final class Domains {

    private static final int SIP_DEFAULT_PORT = 5060;
    private final List<String> served;
    private final String selfHost;
    private final int selfPort;

    public Domains(List<String> served, String selfHost, int selfPort) {
        if (served.isEmpty()) {
            throw new IllegalArgumentException(RegistrarOptions.DOMAINS.name() + " names no domain");
        }
        this.served = served.stream().map(d -> d.toLowerCase(Locale.ROOT)).toList();
        this.selfHost = selfHost.toLowerCase(Locale.ROOT);
        this.selfPort = selfPort;
    }

    /** The domains of {@code p2psip.domains}, and the node's own address of {@code p2psip.sip.address}. */
    public static Domains from(Config config) {
        var served = new ArrayList<String>();
        for (String domain : config.get(RegistrarOptions.DOMAINS).split(",")) {
            if (!domain.isBlank()) {
                served.add(domain.strip());
            }
        }
        HostPort self = HostPort.from(config, NodeOptions.SIP_ADDRESS);
        // as a URI writes its host, which isNode compares with: an IPv6 literal in brackets
        return new Domains(served, self.uriHost(), self.port());
    }

    /** The domain a URI with {@code host} and {@code port} (-1 when it has none) names. */
    public String domainOf(String host, int port) {
        return isNode(host, port) ? served.get(0) : host.toLowerCase(Locale.ROOT);
    }

    /** Whether {@code host} and {@code port} (-1 when a URI has none: 5060) are this node's own SIP address. */
    public boolean isNode(String host, int port) {
        return (port < 0 ? SIP_DEFAULT_PORT : port) == selfPort && host.equalsIgnoreCase(selfHost);
    }

    /** Whether this deployment serves {@code domain} (as {@link #domainOf} returns it). */
    public boolean serves(String domain) {
        return served.contains(domain);
    }
}
