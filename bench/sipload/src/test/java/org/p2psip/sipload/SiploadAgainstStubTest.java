package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.auth.Algorithm;

/**
 * The whole client, run as its command line runs it, against an in-test registrar stub
 * ({@link RegistrarStub}): a test of the client, not of the nodes. T1 of 200 ms and 3 s time-outs
 * leave a cold JVM on a busy machine room; the tests of retransmissions and time-outs set their own.
 */
class SiploadAgainstStubTest {
    private static final int USERS = 20;
    @TempDir
    Path folder;
    private Path users;
    private RegistrarStub stub;

    @BeforeEach
    void start() throws IOException {
        users = StubUsers.write(folder, USERS);
        stub = new RegistrarStub(StubUsers.passwords(USERS), Duration.ofMinutes(5));
    }

    @AfterEach
    void stop() throws InterruptedException {
        stub.close();
    }

    @Test
    void firstRegistrationsAnswerTheChallengeOfTheAlgorithmChosen() throws IOException {
        for (Algorithm algorithm : Algorithm.values()) {
            stub.received.clear();
            Map<String, String> s = run("--mode", "first", "--attempts", "20", "--algorithm", algorithm.wireName());
            assertEquals("20", s.get("completed"), s.toString());
            assertEquals("0", s.get("failed"), s.toString());
            assertEquals(40, stub.received.size(), "a REGISTER without and one with credentials per user");
            assertEquals(algorithm, stub.lastAlgorithm("u3"));
        }
    }

    @Test
    void refreshesReuseTheNonceWithTheNextCountTheSameCallIdAndTheNextCseq() throws IOException {
        Path state = folder.resolve("state.tsv");
        run("--mode", "first", "--state", state.toString());
        int before = stub.received.size();
        RegistrarStub.Received registered = last(stub.received, "u5");
        Map<String, String> s = run("--mode", "refresh", "--attempts", "40", "--state", state.toString());
        assertEquals("40", s.get("completed"), s.toString());
        assertEquals("0", s.get("primed"), s.toString());
        List<RegistrarStub.Received> refreshes = stub.received.subList(before, stub.received.size());
        assertEquals(40, refreshes.size(), "one round trip per refresh");
        assertTrue(refreshes.stream().allMatch(r -> !r.authorization().isEmpty()), "every refresh carries credentials");
        assertEquals(List.of(1, 2, 3), stub.nonceCounts("u5"), "the first answer's nc 1, then 2 and 3 on the same nonce");
        List<RegistrarStub.Received> ofU5 = refreshes.stream().filter(r -> r.user().equals("u5")).toList();
        assertEquals(List.of(registered.callId(), registered.callId()), ofU5.stream().map(r -> r.callId()).toList());
        assertEquals(List.of(registered.cseq() + 1, registered.cseq() + 2), ofU5.stream().map(r -> r.cseq()).toList());
    }

    @Test
    void aRefreshOnAnAgedNonceAnswersTheStaleChallengeOnce() throws IOException {
        Path state = folder.resolve("state.tsv");
        run("--mode", "first", "--state", state.toString());
        stub.clockMillis.addAndGet(Duration.ofMinutes(6).toMillis());
        Map<String, String> s = run("--mode", "refresh", "--attempts", "20", "--state", state.toString());
        assertEquals("20", s.get("completed"), s.toString());
        assertEquals("20", s.get("stale_answered"), s.toString());
    }

    @Test
    void aRefreshWithoutStatePrimesItsPhonesFirst() throws IOException {
        Map<String, String> s = run("--mode", "refresh", "--attempts", "10");
        assertEquals("20", s.get("primed"), s.toString());
        assertEquals("10", s.get("completed"), s.toString());
    }

    @Test
    void lostRequestsAreRetransmittedAndStillComplete() throws IOException {
        stub.dropFirstCopies = true;
        Map<String, String> s = run("--mode", "first", "--attempts", "10", "--t1-ms", "50");
        assertEquals("10", s.get("completed"), s.toString());
        assertTrue(Long.parseLong(s.get("retransmissions")) >= 20, "each of the 20 requests sent again: " + s);
        assertTrue(Double.parseDouble(s.get("p50_ms")) >= 2 * 50, "two requests, each answered after T1: " + s);
    }

    @Test
    void anUnansweredUserTimesOutAndOtherStatusesFail() throws IOException {
        stub.silentUsers.add("u0");
        Map<String, String> s = run("--mode", "plain", "--attempts", "20", "--t1-ms", "100", "--timeout-ms", "1000");
        assertEquals("1", s.get("timeouts"), s.toString());
        assertEquals("19", s.get("unexpected"), "plain meets the 401 of a registrar with authentication: " + s);
        assertEquals("401:19", s.get("statuses"), s.toString());
        assertEquals("20", s.get("failed"), s.toString());
    }

    @Test
    void aWrongPasswordFailsOnTheSecond401() throws IOException {
        Path wrong = Files.write(folder.resolve("wrong.csv"), List.of("u1," + RegistrarStub.DOMAIN + ",guess"));
        Map<String, String> s = run("--mode", "first", "--users", wrong.toString());
        assertEquals("0", s.get("completed"), s.toString());
        assertEquals("401:1", s.get("statuses"), s.toString());
    }

    @Test
    void aRegistrationRefused503WithRetryAfterComesBackOnItsCallIdWithTheNextCseqWithoutCredentialsAndCompletes()
            throws IOException {
        stub.overloadOnce = true;
        Map<String, String> s = run("--mode", "first", "--retry-503", "1");
        assertEquals("20", s.get("completed"), s.toString());
        assertEquals("0", s.get("failed"), s.toString());
        assertEquals(Integer.toString(stub.refused.size()), s.get("retried_503"), "one re-send per 503: " + s);
        assertEquals(USERS, stub.refused.size());
        assertEquals("", s.get("statuses"), "a 503 answered by coming back failed nothing: " + s);
        assertTrue(Double.parseDouble(s.get("p50_ms")) >= 1000, "latency from the first REGISTER, wait included: " + s);
        List<RegistrarStub.Received> ofU3 = of(stub.received, "u3");
        assertEquals(List.of(1, 2, 3), ofU3.stream().map(r -> r.cseq()).toList(), "refused, again, the answer");
        assertEquals(1, ofU3.stream().map(r -> r.callId()).distinct().count(), "one Call-ID: " + ofU3);
        assertEquals("", ofU3.get(1).authorization(), "still awaiting its challenge: no credentials");
    }

    @Test
    void aRefreshRefused503ComesBackWithItsCredentialsOnTheNextNonceCount() throws IOException {
        Path state = folder.resolve("state.tsv");
        run("--mode", "first", "--state", state.toString());
        int before = stub.received.size();
        stub.overloadOnce = true;
        Map<String, String> s = run("--mode", "refresh", "--attempts", "20", "--state", state.toString(),
                "--retry-503", "1");
        assertEquals("20", s.get("completed"), s.toString());
        assertEquals("20", s.get("retried_503"), s.toString());
        List<RegistrarStub.Received> ofU5 = of(stub.received.subList(before, stub.received.size()), "u5");
        assertEquals(2, ofU5.size(), "the refused refresh and its re-send: " + ofU5);
        assertEquals(ofU5.get(0).callId(), ofU5.get(1).callId());
        assertEquals(ofU5.get(0).cseq() + 1, ofU5.get(1).cseq());
        assertEquals(List.of(1, 2, 3), stub.nonceCounts("u5"),
                "the challenge's answer, the refused refresh, its re-send");
    }

    @Test
    void withoutRetry503OrWithoutRetryAfterEveryRefusedRegistrationFailsOn503() throws IOException {
        stub.overloadOnce = true;
        Map<String, String> s = run("--mode", "first");
        assertEquals("0", s.get("completed"), s.toString());
        assertEquals("503:20", s.get("statuses"), "the default fails every refused registration: " + s);
        assertEquals("0", s.get("retried_503"), s.toString());
        stub.refused.clear();
        stub.retryAfter = -1;
        s = run("--mode", "first", "--retry-503", "1");
        assertEquals("503:20", s.get("statuses"), "no Retry-After: no time to come back, so no re-send: " + s);
        assertEquals("0", s.get("retried_503"), s.toString());
    }

    @Test
    void plainRegistrationsOfARegistrarWithoutAuthenticationComplete() throws IOException {
        stub.authenticate = false;
        Path log = folder.resolve("registrations.csv");
        Map<String, String> s = run("--mode", "plain", "--duration", "0.5", "--rate", "40", "--csv", log.toString());
        assertEquals("20", s.get("completed"), s.toString());
        List<String> lines = Files.readAllLines(log);
        assertEquals(AttemptLog.HEADER, lines.get(0));
        assertEquals(21, lines.size());
        assertTrue(lines.get(1).endsWith(",ok,0"), lines.get(1));
    }

    private Map<String, String> run(String... extra) throws IOException {
        var args = new ArrayList<>(List.of("--target", stub.address(), "--users", users.toString(), "--rate", "200",
                "--t1-ms", "200", "--timeout-ms", "3000", "--quiet"));
        args.addAll(List.of(extra));
        var out = new ByteArrayOutputStream();
        SiploadMain.run(LoadOptions.parse(args.toArray(String[]::new)), new PrintStream(out, true, StandardCharsets.UTF_8), null);
        return StubUsers.summary(out.toString(StandardCharsets.UTF_8).strip());
    }

    private static List<RegistrarStub.Received> of(List<RegistrarStub.Received> received, String user) {
        return received.stream().filter(r -> r.user().equals(user)).toList();
    }

    private static RegistrarStub.Received last(List<RegistrarStub.Received> received, String user) {
        RegistrarStub.Received found = null;
        for (RegistrarStub.Received r : received) {
            if (r.user().equals(user)) {
                found = r;
            }
        }
        return found;
    }
}
