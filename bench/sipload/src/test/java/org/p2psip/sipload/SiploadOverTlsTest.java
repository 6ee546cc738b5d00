package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client over TLS, run as its command line runs it, against {@link TcpRegistrarStub} behind
 * an SSLServerSocket with a key keytool made for 127.0.0.1: persistent phones register, hold and
 * answer a call over their connection; per-transaction connections; a trust store that does not
 * hold the server's certificate, and a trusted certificate for another address, fail the handshake
 * and are counted; --tls-insecure takes any certificate.
 */
class SiploadOverTlsTest {
    private static final int USERS = 20;
    @TempDir
    static Path keys;
    private static TestTlsKeys server;     // for 127.0.0.1, the stub's address
    private static TestTlsKeys elsewhere;  // for another address
    @TempDir
    Path folder;
    private TcpRegistrarStub stub;

    @BeforeAll
    static void makeKeys() throws Exception {
        server = TestTlsKeys.make(keys, "server", "127.0.0.1");
        elsewhere = TestTlsKeys.make(keys, "elsewhere", "192.0.2.1");
    }

    @AfterEach
    void stop() throws Exception {
        if (stub != null) {
            stub.close();
            stub.registrar.close();
        }
    }

    private void serveWith(TestTlsKeys key) throws Exception {
        stub = new TcpRegistrarStub(new RegistrarStub(StubUsers.passwords(USERS), Duration.ofMinutes(5)),
                key.listener());
    }

    @Test
    void persistentPhonesRegisterOverTlsHoldAndAnswerACallOnTheirConnection() throws Exception {
        serveWith(server);
        var out = new ByteArrayOutputStream();
        CompletableFuture<Integer> code = CompletableFuture.supplyAsync(() -> run(out, "--mode", "first",
                "--outbound", "--hold", "2.5", "--trust-store", server.certificatePem.toString()));
        StubUsers.waitFor(() -> stub.users.size() >= 2 * USERS, 10);
        List<String> answers = stub.call("u3", TcpRegistrarStub.invite("u3", "TLS"), 2);
        assertEquals(0, code.get());
        Map<String, String> s = StubUsers.lastSummary(out);
        assertEquals("tls", s.get("transport"), s.toString());
        assertEquals("20", s.get("completed"), s.toString());
        assertEquals("20", s.get("connections_opened"), "one connection per phone for both REGISTERs: " + s);
        assertEquals("20", s.get("connections_open"), "held to the end: " + s);
        assertEquals("20", s.get("tls_handshakes"), s.toString());
        assertEquals("0", s.get("tls_handshake_failures"), s.toString());
        assertFalse(s.get("tls_handshake_p50_ms").isEmpty(), s.toString());
        assertTrue(Long.parseLong(s.get("keepalive_pongs")) >= 1, "keep-alives through TLS: " + s);
        assertEquals("1", s.get("calls_answered"), s.toString());
        String register = stub.registers.get(0);
        assertTrue(register.contains("\r\nVia: SIP/2.0/TLS 127.0.0.1:"), register);
        assertTrue(register.matches("(?s).*\r\nContact: <sip:u\\d+@127\\.0\\.0\\.1:\\d+;transport=tls>.*"), register);
        assertEquals(2, answers.size(), answers.toString());
        assertTrue(answers.get(0).startsWith("SIP/2.0 180 Ringing\r\n"), answers.get(0));
        assertTrue(answers.get(1).startsWith("SIP/2.0 200 OK\r\n"), answers.get(1));
        assertTrue(answers.get(1).contains(";transport=tls>"), "the phone's TLS Contact: " + answers.get(1));
    }

    @Test
    void perTransactionConnectionsHandshakeEachTime() throws Exception {
        serveWith(server);
        var out = new ByteArrayOutputStream();
        assertEquals(0, run(out, "--mode", "first", "--connection", "per-transaction",
                "--trust-store", server.trustStore.toString(), "--trust-store-password", TestTlsKeys.PASSWORD));
        Map<String, String> s = StubUsers.lastSummary(out);
        assertEquals("20", s.get("completed"), s.toString());
        assertEquals("40", s.get("connections_opened"), s.toString());
        assertEquals("40", s.get("tls_handshakes"), s.toString());
        assertEquals("0", s.get("connections_open"), s.toString());
    }

    @Test
    void aServerTheTrustStoreDoesNotVouchForFailsTheHandshakeAndIsCounted() throws Exception {
        serveWith(server);
        handshakesFail(elsewhere, "the server's certificate is not in the trust store");
        assertTrue(stub.users.isEmpty(), "no REGISTER went out in the clear or otherwise");
    }

    @Test
    void aTrustedCertificateForAnotherAddressFailsTheHandshake() throws Exception {
        serveWith(elsewhere);
        handshakesFail(elsewhere, "127.0.0.1 is not 192.0.2.1");
    }

    /** Five registrations trusting {@code trusted}'s certificate fail at once, each a handshake failure. */
    private void handshakesFail(TestTlsKeys trusted, String why) {
        var out = new ByteArrayOutputStream();
        assertEquals(1, run(out, "--mode", "plain", "--attempts", "5", "--trust-store",
                trusted.certificatePem.toString()));
        Map<String, String> s = StubUsers.lastSummary(out);
        assertEquals("5", s.get("tls_handshake_failures"), why + ": " + s);
        assertEquals("0", s.get("tls_handshakes"), s.toString());
        assertEquals("5", s.get("connection_failures"), "failed at once: " + s);
        assertEquals("0", s.get("timeouts"), s.toString());
        assertEquals("0", s.get("closed_by_server"), s.toString());
    }

    @Test
    void insecureTakesAnyCertificate() throws Exception {
        serveWith(elsewhere);
        var out = new ByteArrayOutputStream();
        assertEquals(0, run(out, "--mode", "first", "--tls-insecure"));
        Map<String, String> s = StubUsers.lastSummary(out);
        assertEquals("20", s.get("completed"), s.toString());
        assertEquals("20", s.get("tls_handshakes"), s.toString());
    }

    private int run(ByteArrayOutputStream out, String... extra) {
        var args = new ArrayList<>(List.of("--target", stub.address(), "--users", users(), "--rate", "200",
                "--timeout-ms", "5000", "--quiet", "--transport", "tls"));
        args.addAll(List.of(extra));
        return StubUsers.run(out, args);
    }

    private String users() {
        try {
            return StubUsers.write(folder, USERS).toString();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
