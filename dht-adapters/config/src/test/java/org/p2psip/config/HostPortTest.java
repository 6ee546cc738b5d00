package org.p2psip.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class HostPortTest {

    @Test
    void readsHostAndPort() {
        assertEquals(new HostPort("127.0.0.1", 5070), HostPort.parse("127.0.0.1:5070"));
        assertEquals(new HostPort("node-0.example", 6070), HostPort.parse(" node-0.example:6070 "));
        assertEquals(new HostPort("127.0.0.1", 0), HostPort.parse("127.0.0.1:0"), "port 0: the system picks one");
    }

    @Test
    void readsAnIpv6LiteralInBrackets() {
        var address = HostPort.parse("[::1]:5060");
        assertEquals(new HostPort("::1", 5060), address);
        assertEquals("[::1]", address.uriHost());
        assertEquals("[::1]:5060", address.toString(), "written back as it was read");
        assertEquals(new HostPort("fe80::1:2", 65535), HostPort.parse("[fe80::1:2]:65535"));
    }

    @Test
    void aMissingPortIsNamedInTheError() {
        for (String text : new String[] {"127.0.0.1", "127.0.0.1:", "[::1]", "[::1]:", ""}) {
            var e = assertThrows(IllegalArgumentException.class, () -> HostPort.parse(text), text);
            assertTrue(e.getMessage().contains("no port"), e.getMessage());
        }
    }

    @Test
    void aBadPortIsNamedInTheError() {
        for (String text : new String[] {"host:http", "host:-1", "host:+80", "host:70000", "host:5060 5061", "host:123456"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> HostPort.parse(text), text);
            assertTrue(e.getMessage().startsWith("'" + text + "'"), e.getMessage());
        }
    }

    @Test
    void anIpv6LiteralWithoutBracketsIsRefusedNotGuessed() {
        // "::1:5060" could be ::1 port 5060 or ::1:5060 with no port: brackets say which
        var e = assertThrows(IllegalArgumentException.class, () -> HostPort.parse("::1:5060"));
        assertTrue(e.getMessage().contains("brackets"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse(":5060"), "no host");
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse("[]:5060"), "no host");
    }

    @Test
    void anOptionsAddressIsReadAndItsErrorNamesTheOption() {
        assertEquals(new HostPort("127.0.0.1", 5070), HostPort.from(Config.empty(), NodeOptions.SIP_ADDRESS), "the default");
        Config bad = Config.empty().with(NodeOptions.OVERLAY_ADDRESS.name(), "127.0.0.1");
        var e = assertThrows(IllegalArgumentException.class, () -> HostPort.from(bad, NodeOptions.OVERLAY_ADDRESS));
        assertTrue(e.getMessage().startsWith("option p2psip.overlay.address: '127.0.0.1' has no port"), e.getMessage());
    }

    @Test
    void aBoundSocketNamesItselfByIp() throws Exception {
        var v4 = HostPort.of(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 6071));
        assertEquals("127.0.0.1:6071", v4.toString());
        var v6 = HostPort.of(new InetSocketAddress(InetAddress.getByName("::1"), 6071));
        assertEquals(v6, HostPort.parse(v6.toString()), "what a node writes of itself reads back");
    }

    @Test
    void aLiteralBecomesASocketAddress() {
        var socket = HostPort.parse("[::1]:5060").socketAddress();
        assertEquals(5060, socket.getPort());
        assertTrue(socket.getAddress().isLoopbackAddress());
    }
}
