package org.p2psip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;

/** Which domain a URI's host names, and which domains are served. */
class DomainsTest {

    private final Domains domains = new Domains(List.of("P2PSIP.test", "example.org"), "127.0.0.1", 5070);

    @Test
    void aHostNamesItsDomainInLowerCase() {
        assertEquals("example.org", domains.domainOf("Example.ORG", -1));
        assertTrue(domains.serves(domains.domainOf("Example.ORG", 5080)));
        assertTrue(domains.serves("p2psip.test"));
    }

    @Test
    void theNodesOwnAddressNamesTheDefaultDomain() {
        assertEquals("p2psip.test", domains.domainOf("127.0.0.1", 5070));
        assertEquals("127.0.0.1", domains.domainOf("127.0.0.1", 5071), "another node's address is no domain of ours");
        assertEquals("127.0.0.1", domains.domainOf("127.0.0.1", -1), "no port is 5060, not this node's");
        assertFalse(domains.serves("127.0.0.1"));
    }

    @Test
    void aNodeOn5060IsAlsoItsAddressWithoutPort() {
        var on5060 = new Domains(List.of("p2psip.test"), "10.0.0.1", 5060);
        assertEquals("p2psip.test", on5060.domainOf("10.0.0.1", -1));
    }

    @Test
    void anotherDomainIsNotServed() {
        assertFalse(domains.serves(domains.domainOf("evil.example", -1)));
    }

    @Test
    void theOptionsListTheDomainsAndTheNodesAddress() {
        var configured = Domains.from(Config.empty().with(RegistrarOptions.DOMAINS.name(), " a.test , b.test ,")
                .with("p2psip.sip.address", "127.0.0.2:6000"));
        assertTrue(configured.serves("a.test") && configured.serves("b.test"));
        assertEquals("a.test", configured.domainOf("127.0.0.2", 6000));
    }

    @Test
    void aNodeOnIpv6KnowsItsAddressAsAUriWritesIt() {
        var onV6 = Domains.from(Config.empty().with(RegistrarOptions.DOMAINS.name(), "a.test")
                .with("p2psip.sip.address", "[::1]:5070"));
        assertEquals("a.test", onV6.domainOf("[::1]", 5070), "the host of sip:bob@[::1]:5070");
        assertEquals("[::1]", onV6.domainOf("[::1]", 5071));
    }
}
