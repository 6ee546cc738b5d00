package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.p2psip.auth.Algorithm;

/** The command line: defaults, the number of attempts, what is refused. */
class LoadOptionsTest {

    @Test
    void defaultsAreSha256Timer64T1AndOneAttemptPerUser() {
        LoadOptions o = LoadOptions.parse("--target", "127.0.0.1:5070", "--users", "u.csv", "--mode", "first");
        assertEquals(Algorithm.SHA_256, o.algorithm());
        assertEquals(32_000, o.timeoutMillis());
        assertEquals(100, o.rate());
        assertEquals(o.rate(), o.primeRate());
        assertEquals(250, o.plannedAttempts(250));
    }

    @Test
    void durationTimesRateIsTheNumberOfAttempts() {
        LoadOptions o = LoadOptions.parse("--target", "h:1", "--users", "u", "--mode", "refresh", "--rate", "1500",
                "--duration", "3", "--t1-ms", "100", "--algorithm", "md5");
        assertEquals(4500, o.plannedAttempts(10));
        assertEquals(6_400, o.timeoutMillis());
        assertEquals(Algorithm.MD5, o.algorithm());
    }

    @Test
    void retry503IsOffByDefaultCountsRetriesAndRefusesANegativeCount() {
        assertEquals(0, LoadOptions.parse("--target", "h:1", "--users", "u", "--mode", "first").retry503(),
                "by default a 503 fails its registration");
        assertEquals(3, LoadOptions.parse("--target", "h:1", "--users", "u", "--mode", "first", "--retry-503", "3")
                .retry503());
        assertEquals(2, LoadOptions.parse("--target", "h:1", "--users", "u", "--mode", "plain", "--transport", "tcp",
                "--retry-503", "2").retry503(), "over any transport");
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--retry-503", "-1"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--retry-503"));
    }

    @Test
    void missingOrUnknownOptionsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--users", "u", "--mode", "first"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "twice"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--algorithm", "SHA-512-256"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--duration", "2", "--attempts", "5"));
    }

    @Test
    void tcpOptionsNeedTcpAndKeepAlivesAndHoldNeedPersistentConnections() {
        LoadOptions o = LoadOptions.parse("--target", "h:1", "--users", "u", "--mode", "plain", "--transport", "tcp",
                "--sources", "127.0.0.2-127.0.0.41", "--outbound", "--hold", "0", "--offset", "17000");
        assertEquals(true, o.persistent());
        assertEquals(40, o.sources().size());
        assertEquals(0.0, o.holdSeconds());
        assertEquals(17_000, o.offset());
        assertEquals("udp", LoadOptions.parse("--target", "h:1", "--users", "u", "--mode", "plain").transport());
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--hold", "10"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--transport", "tcp", "--connection", "per-transaction", "--keepalive", "30"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--transport", "sctp"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--transport", "tcp", "--sources", "127.0.0.9-127.0.0.2"));
    }

    @Test
    void tlsTakesTheTcpOptionsAndNeedsATrustStoreOrInsecure() {
        LoadOptions o = LoadOptions.parse("--target", "127.0.0.1:33490", "--users", "u", "--mode", "plain",
                "--transport", "tls", "--trust-store", "ca.pem", "--outbound", "--hold", "30");
        assertEquals(true, o.tls());
        assertEquals(true, o.stream());
        assertEquals("ca.pem", o.trustStore().toString());
        assertEquals(false, o.tlsInsecure());
        assertEquals(true, LoadOptions.parse("--target", "h:1", "--users", "u", "--mode", "plain", "--transport", "tls",
                "--tls-insecure", "--connection", "per-transaction").tlsInsecure());
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--transport", "tls"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--transport", "tls", "--trust-store", "ca.pem", "--tls-insecure"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--transport", "tcp", "--trust-store", "ca.pem"));
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--target", "h:1", "--users", "u",
                "--mode", "plain", "--tls-insecure"));
    }
}
