package org.p2psip.sipload;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/** The transport a command line asks for, with its source addresses and, over TLS, whom it trusts. */
final class Transports {

    private Transports() {
    }

    static LoadTransport open(LoadOptions options, Ids ids) throws IOException {
        if (!options.stream()) {
            return new UdpTransport(options.bind(), options.target());
        }
        TlsClient tls = options.tls()
                ? new TlsClient(options.target(), options.tlsInsecure() ? null : options.trustStore(),
                        options.trustStorePassword())
                : null;
        return new TcpTransport(options.target(), sources(options), options.persistent(), options.keepaliveSeconds(),
                new UserAgent(ids, options.ringMillis()), tls);
    }

    /** --sources; else --bind's address (its port is the system's choice per connection); else the one toward the target. */
    static Sources sources(LoadOptions options) throws IOException {
        if (options.sources() != null) {
            return options.sources();
        }
        InetSocketAddress bind = options.bind();
        if (!bind.isUnresolved() && !bind.getAddress().isAnyLocalAddress()) {
            return new Sources(List.of(bind.getAddress()));
        }
        return Sources.toward(options.target());
    }
}
