package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client over TCP, run as its command line runs it, against {@link TcpRegistrarStub}: a
 * connection per phone kept for the run and held, or one per REGISTER; outbound's Require and
 * Flow-Timer; keep-alives answered; a call over a phone's connection; a refused connect.
 */
class SiploadOverTcpTest {
    private static final int USERS = 20;
    @TempDir
    Path folder;
    private Path users;
    private TcpRegistrarStub stub;

    @BeforeEach
    void start() throws IOException {
        users = StubUsers.write(folder, USERS);
        stub = new TcpRegistrarStub(new RegistrarStub(StubUsers.passwords(USERS), Duration.ofMinutes(5)));
    }

    @AfterEach
    void stop() throws Exception {
        stub.close();
        stub.registrar.close();
    }

    @Test
    void persistentPhonesRegisterOnAConnectionEachAndHoldItAnsweringCallsAndKeepAlives() throws Exception {
        var out = new ByteArrayOutputStream();
        CompletableFuture<Integer> code = CompletableFuture.supplyAsync(() -> run(out, stub.address(), "--mode",
                "first", "--outbound", "--hold", "2.5"));
        StubUsers.waitFor(() -> stub.users.size() >= 2 * USERS, 5);
        List<String> answers = stub.call("u3", TcpRegistrarStub.invite("u3", "TCP"), 2);
        assertEquals(0, code.get());
        Map<String, String> s = StubUsers.lastSummary(out);
        assertEquals("20", s.get("completed"), s.toString());
        assertEquals("20", s.get("connections_opened"), "one connection per phone for both REGISTERs: " + s);
        assertEquals(20, stub.accepted.get());
        assertEquals("20", s.get("connections_open"), "held to the end: " + s);
        assertEquals("20", s.get("outbound_required"), s.toString());
        assertEquals(TcpRegistrarStub.FLOW_TIMER + ":20", s.get("flow_timers"), s.toString());
        assertTrue(Long.parseLong(s.get("keepalive_pings")) >= 20, "the Flow-Timer's pings: " + s);
        long due = Long.parseLong(s.get("keepalive_pongs_due"));
        assertEquals(Long.parseLong(s.get("keepalive_pings")), Long.parseLong(s.get("keepalive_pongs")) + due,
                "each ping answered but those out at the end: " + s);
        assertTrue(due >= 0 && due <= USERS, s.toString());
        assertEquals("1", s.get("calls_answered"), s.toString());
        assertEquals(2, answers.size(), answers.toString());
        assertTrue(answers.get(0).startsWith("SIP/2.0 180 Ringing\r\n"), answers.get(0));
        assertTrue(answers.get(1).startsWith("SIP/2.0 200 OK\r\n"), answers.get(1));
        assertTrue(answers.get(1).contains("\r\nRecord-Route: <sip:127.0.0.1:5060;transport=tcp;lr>\r\n"), answers.get(1));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("sipload registered ok=20 failed=0\n"));
    }

    @Test
    void perTransactionOpensAConnectionPerRegisterAndClosesIt() throws Exception {
        var out = new ByteArrayOutputStream();
        assertEquals(0, run(out, stub.address(), "--mode", "first", "--connection", "per-transaction"));
        Map<String, String> s = StubUsers.lastSummary(out);
        assertEquals("20", s.get("completed"), s.toString());
        assertEquals("40", s.get("connections_opened"), "the challenge's answer on a new connection: " + s);
        assertEquals("0", s.get("connections_open"), s.toString());
        assertEquals("0", s.get("retransmissions"), s.toString());
    }

    @Test
    void persistentPhonesRefused503ComeBackOnTheirOwnConnectionsAndComplete() throws Exception {
        stub.registrar.overloadOnce = true;
        var out = new ByteArrayOutputStream();
        assertEquals(0, run(out, stub.address(), "--mode", "first", "--retry-503", "1"));
        Map<String, String> s = StubUsers.lastSummary(out);
        assertEquals("20", s.get("completed"), s.toString());
        assertEquals(Integer.toString(stub.registrar.refused.size()), s.get("retried_503"), s.toString());
        assertEquals(USERS, stub.registrar.refused.size());
        assertEquals("20", s.get("connections_opened"), "each re-send on its phone's connection: " + s);
        assertEquals(20, stub.accepted.get());
        List<RegistrarStub.Received> ofU3 = stub.registrar.received.stream()
                .filter(r -> r.user().equals("u3")).toList();
        assertEquals(List.of(1, 2, 3), ofU3.stream().map(r -> r.cseq()).toList(), "refused, again, the answer");
        assertEquals(1, ofU3.stream().map(r -> r.callId()).distinct().count(), "one Call-ID: " + ofU3);
    }

    @Test
    void withoutRetry503EveryPhoneRefused503Fails() throws Exception {
        stub.registrar.overloadOnce = true;
        var out = new ByteArrayOutputStream();
        assertEquals(1, run(out, stub.address(), "--mode", "first"));
        Map<String, String> s = StubUsers.lastSummary(out);
        assertEquals("503:20", s.get("statuses"), s.toString());
        assertEquals("0", s.get("retried_503"), s.toString());
    }

    @Test
    void aRefusedConnectionFailsItsRegistrationAtOnce() throws Exception {
        String nobody;
        try (var probe = new ServerSocket(0)) {
            nobody = "127.0.0.1:" + probe.getLocalPort();
        }
        var out = new ByteArrayOutputStream();
        assertEquals(1, run(out, nobody, "--mode", "plain", "--attempts", "5"));
        Map<String, String> s = StubUsers.lastSummary(out);
        assertEquals("5", s.get("connection_failures"), s.toString());
        assertEquals("5", s.get("connections_refused"), s.toString());
        assertEquals("0", s.get("timeouts"), "refused, not left to time out: " + s);
    }

    private int run(ByteArrayOutputStream out, String target, String... extra) {
        var args = new ArrayList<>(List.of("--target", target, "--users", users.toString(), "--rate", "200",
                "--timeout-ms", "3000", "--quiet", "--transport", "tcp"));
        args.addAll(List.of(extra));
        return StubUsers.run(out, args);
    }
}
