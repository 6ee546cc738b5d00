package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Calls through the front in each of its three state modes, against two real Chord nodes: the
 * front deploy/p2psip starts (stateless, SIP 25560; nodes on 25561 and 25562, logging every SIP
 * message) and two more fronts this test starts on the same nodes, stateful (25570) and dynamic
 * (25571). Phones of the test's own on 25580-25584 play caller and callees, so that a callee can
 * answer 486, stay silent, or a caller drop an answer once. Every call must complete as SIP says,
 * whichever mode: INVITE, 180, 200, ACK, BYE; a CANCEL; a busy callee; a first contact that never
 * answers and a second that does. In stateful mode the node sees only the INVITE (and the ACK of
 * its 302), both answered in its intake without a session of the container's, and the front, not
 * the node, answers a retransmitted BYE. A phone on a TCP connection to the stateful front, which
 * listens nowhere else, is called through it: the front keeps the call and rings the phone down
 * that connection (its status page on 28570 says so).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FrontStateIT extends DeployedNodes {

    static final int FRONT = 25560;
    static final int STATEFUL = 25570;
    static final int DYNAMIC = 25571;
    static final int PHONES = 25580;
    static final String DOMAIN = "p2psip.test";
    /** How long one contact rings before the next, at the nodes and at the fronts the test starts. */
    static final String BRANCH_TIMEOUT = "2s";
    /** A bound on any one message's arrival: generous for a loaded 2-core machine. */
    static final Duration SOON = Duration.ofSeconds(10);
    /**
     * How long the silent contact may hold the call up. A front that keeps the call gives up on it
     * at its branch time-out, and so does a node (its proxy time-out, even for a branch that never
     * answered 100: QClassTimeoutIT); the bound still leaves room for Timer B (64 x T1 = 32 s).
     */
    static final Duration AFTER_SILENCE = Duration.ofSeconds(45);
    /** Calls looked up through the stateful front while the nodes' counters are watched. */
    static final int CALLS = 30;

    private final List<Process> fronts = new ArrayList<>();
    private final Map<String, InetSocketAddress> modes = new java.util.LinkedHashMap<>();
    private ScriptedPhone caller;
    private ScriptedPhone bob;
    private ScriptedPhone silent;
    private ScriptedPhone second;
    /** A callee on a TCP connection to the stateful front, registered through it (its flow). */
    private ScriptedPhone carol;

    FrontStateIT() {
        super("front-state", "chord", FRONT + 1, 2);
        deployment.withFront("rr", FRONT).withSetting("p2psip.proxy.branch-timeout", BRANCH_TIMEOUT);
    }

    @BeforeAll
    void frontsAndPhones() {
        modes.put("stateless", new InetSocketAddress("127.0.0.1", FRONT));
        modes.put("stateful", startFront("stateful", STATEFUL));
        modes.put("dynamic", startFront("dynamic", DYNAMIC));
        caller = new ScriptedPhone("alice", PHONES);
        bob = new ScriptedPhone("bob", PHONES + 1);
        silent = new ScriptedPhone("dave", PHONES + 2);
        second = new ScriptedPhone("dave", PHONES + 3);
    }

    @AfterAll
    void stopFrontsAndPhones() {
        fronts.forEach(Process::destroy); // SIGTERM to the PIDs this test started
        for (ScriptedPhone phone : new ScriptedPhone[] {caller, bob, silent, second, carol}) {
            if (phone != null) {
                phone.close();
            }
        }
    }

    @Test
    @Order(1)
    void calleesRegisterThroughTheFront() {
        register(bob, 1.0);
        register(silent, 1.0);
        register(second, 0.5);
    }

    @Test
    @Order(2)
    void aCallCompletesInEveryMode() {
        modes.forEach((mode, front) -> {
            Call call = invite(front, "bob");
            var invite = bob.await("the INVITE (" + mode + ")", SOON, m -> m.isRequest("INVITE"));
            bob.answer(invite, 180, "Ringing", "bob-" + call.id);
            // the 200 only once the 180 is through: sent together, they may cross the node apart
            // (two threads), and a 180 after the 200 is no longer forwarded
            caller.await("180 (" + mode + ")", SOON, m -> m.isResponse(180, "INVITE") && call.is(m));
            bob.answer(invite, 200, "OK", "bob-" + call.id);
            var ok = caller.await("200 (" + mode + ")", SOON, m -> m.isResponse(200, "INVITE") && call.is(m));
            call.ack2xx(ok);
            bob.await("the ACK (" + mode + ")", SOON, m -> m.isRequest("ACK") && call.is(m));
            call.bye(ok, 2);
            var bye = bob.await("the BYE (" + mode + ")", SOON, m -> m.isRequest("BYE") && call.is(m));
            bob.answer(bye, 200, "OK", null);
            caller.await("200 to the BYE (" + mode + ")", SOON, m -> m.isResponse(200, "BYE") && call.is(m));
        });
    }

    @Test
    @Order(3)
    void aCancelledCallEndsWith487InEveryMode() {
        modes.forEach((mode, front) -> {
            Call call = invite(front, "bob");
            var invite = bob.await("the INVITE (" + mode + ")", SOON, m -> m.isRequest("INVITE") && call.is(m));
            bob.answer(invite, 180, "Ringing", "bob-" + call.id);
            caller.await("180 (" + mode + ")", SOON, m -> m.isResponse(180, "INVITE") && call.is(m));
            call.cancel();
            caller.await("200 to the CANCEL (" + mode + ")", SOON, m -> m.isResponse(200, "CANCEL") && call.is(m));
            var cancel = bob.await("the CANCEL (" + mode + ")", SOON, m -> m.isRequest("CANCEL") && call.is(m));
            bob.answer(cancel, 200, "OK", "bob-" + call.id);
            bob.answer(invite, 487, "Request Terminated", "bob-" + call.id);
            var terminated = caller.await("487 (" + mode + ")", SOON, m -> m.isResponse(487, "INVITE") && call.is(m));
            call.ackFailure(terminated);
            bob.await("the ACK of the 487 (" + mode + ")", SOON, m -> m.isRequest("ACK") && call.is(m));
        });
    }

    @Test
    @Order(4)
    void aBusyCalleesAnswerReachesTheCallerInEveryMode() {
        modes.forEach((mode, front) -> {
            Call call = invite(front, "bob");
            var invite = bob.await("the INVITE (" + mode + ")", SOON, m -> m.isRequest("INVITE") && call.is(m));
            bob.answer(invite, 486, "Busy Here", "bob-" + call.id);
            var busy = caller.await("486 (" + mode + ")", SOON, m -> m.isResponse(486, "INVITE") && call.is(m));
            call.ackFailure(busy);
            bob.await("the ACK of the 486 (" + mode + ")", SOON, m -> m.isRequest("ACK") && call.is(m));
        });
    }

    @Test
    @Order(5)
    void aContactThatNeverAnswersGivesWayToTheNextInEveryMode() {
        modes.forEach((mode, front) -> {
            Call call = invite(front, "dave");
            silent.await("the INVITE at the first contact (" + mode + ")", SOON, m -> m.isRequest("INVITE") && call.is(m));
            var invite = second.await("the INVITE at the second contact (" + mode + ")", AFTER_SILENCE,
                    m -> m.isRequest("INVITE") && call.is(m));
            second.answer(invite, 200, "OK", "dave-" + call.id);
            var ok = caller.await("200 from the second contact (" + mode + ")", SOON,
                    m -> m.isResponse(200, "INVITE") && call.is(m));
            assertTrue(ok.header("Contact").contains(second.contact()), "the 200 came from the second contact: " + ok);
            call.ack2xx(ok);
            second.await("the ACK (" + mode + ")", SOON, m -> m.isRequest("ACK") && call.is(m));
            call.bye(ok, 2);
            var bye = second.await("the BYE (" + mode + ")", SOON, m -> m.isRequest("BYE") && call.is(m));
            second.answer(bye, 200, "OK", null);
            caller.await("200 to the BYE (" + mode + ")", SOON, m -> m.isResponse(200, "BYE") && call.is(m));
            silent.clear(); // its INVITE's retransmissions
        });
    }

    /**
     * The stateful front answers a BYE retransmitted because its 200 was lost (dropped here, once)
     * from the answer it holds: the callee sees the BYE once.
     */
    @Test
    @Order(6)
    void aLostAnswerIsRetransmittedByTheStatefulFrontNotAskedOfTheCalleeAgain() {
        Call call = invite(modes.get("stateful"), "bob");
        var invite = bob.await("the INVITE", SOON, m -> m.isRequest("INVITE") && call.is(m));
        bob.answer(invite, 200, "OK", "bob-" + call.id);
        var ok = caller.await("200", SOON, m -> m.isResponse(200, "INVITE") && call.is(m));
        call.ack2xx(ok);
        bob.await("the ACK", SOON, m -> m.isRequest("ACK") && call.is(m));
        String branch = call.bye(ok, 2);
        var bye = bob.await("the BYE", SOON, m -> m.isRequest("BYE") && call.is(m));
        bob.answer(bye, 200, "OK", null);
        caller.await("the 200 to the BYE, which the caller drops", SOON, m -> m.isResponse(200, "BYE") && call.is(m));
        call.byeAgain(ok, 2, branch); // as its Timer E would, the 200 being lost
        caller.await("the 200 to the BYE sent again", SOON, m -> m.isResponse(200, "BYE") && call.is(m));
        assertNull(bob.poll(Duration.ofSeconds(2), m -> m.isRequest("BYE") && call.is(m)),
                "the callee got the retransmitted BYE: the front should have answered it");
    }

    /**
     * Behind the stateful front a node sees a call only as its INVITE asking for a redirect and the
     * ACK of its 302, and both end in the node's intake: the intake's count of redirects answered
     * grows by the calls made, the stacks' message logs show none of these calls, and the
     * container creates no application session for them (the sessions it did create in the
     * meantime are the fronts' OPTIONS probes, one each, give or take the probes in flight at
     * either reading: one per front and node).
     */
    @Test
    @Order(7)
    void behindTheStatefulFrontANodesIntakeAnswersTheLookupAndTheContainerMakesNoSession() {
        String redirects = "p2psip_intake_redirects_answered_total{}";
        String sessions = "p2psip_node_sessions_created_total{}";
        String probes = "p2psip_sip_requests_total{method=\"OPTIONS\"}";
        Scrape[] before = {Scrape.of(deployment.httpNode(0)), Scrape.of(deployment.httpNode(1))};
        List<String> callIds = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            Call call = invite(modes.get("stateful"), "bob");
            callIds.add(call.id);
            var invite = bob.await("the INVITE of call " + i, SOON, m -> m.isRequest("INVITE") && call.is(m));
            bob.answer(invite, 486, "Busy Here", "bob-" + call.id);
            var busy = caller.await("486 of call " + i, SOON, m -> m.isResponse(486, "INVITE") && call.is(m));
            call.ackFailure(busy);
            bob.await("the ACK of call " + i, SOON, m -> m.isRequest("ACK") && call.is(m));
        }
        Scrape[] after = {Scrape.of(deployment.httpNode(0)), Scrape.of(deployment.httpNode(1))};
        double answered = 0;
        double created = 0;
        double probed = 0;
        for (int i = 0; i < 2; i++) {
            answered += after[i].value(redirects) - before[i].value(redirects);
            created += after[i].value(sessions) - before[i].value(sessions);
            probed += after[i].value(probes) - before[i].value(probes);
        }
        assertEquals(CALLS, answered, "redirects answered in the nodes' intakes, one per call");
        assertTrue(created <= probed + 2 * (fronts.size() + 1), "the container created " + created + " sessions while "
                + CALLS + " calls were looked up and it was probed " + probed + " times");
        for (int i = 0; i < 2; i++) {
            List<String> seen = SipTrace.read(i, deployment.containerLog(i)).stream().map(SipTrace.Message::callId)
                    .filter(callIds::contains).toList();
            assertEquals(List.of(), seen, "node " + i + "'s stack saw messages of the stateful front's calls");
        }
    }

    /**
     * A callee on TCP behind the stateful front: its REGISTER over its connection gets the front's
     * flow in the Path; the node's 302 names that flow in the contact's URI, and the front, which
     * keeps the call, rings the phone down its connection. The call completes both ways (INVITE,
     * 180, 200, ACK, BYE), only that phone is rung, and the front counts it among its kept calls
     * over TCP or TLS.
     */
    @Test
    @Order(8)
    void aKeptCallToAPhoneOnTcpBehindTheFront() {
        InetSocketAddress front = modes.get("stateful");
        carol = ScriptedPhone.onTcp("carol", front);
        var registered = carol.register(front, DOMAIN, "1.0", SOON);
        assertEquals(200, registered.status(), "REGISTER over TCP through the stateful front: " + registered);
        String status = "http://127.0.0.1:" + (STATEFUL + 3000) + "/";
        String keptOverStreams = "p2psip_front_kept_stream_calls_total{}";
        String kept = "p2psip_front_stateful_calls_total{}";
        Scrape before = Scrape.of(status);

        Call call = invite(front, "carol");
        var invite = carol.await("the INVITE down its connection", SOON, m -> m.isRequest("INVITE") && call.is(m));
        assertTrue(invite.firstLine().startsWith("INVITE " + carol.contact() + " "),
                "the Request-URI is the phone's contact, without the Path: " + invite);
        assertTrue(invite.header("Via").startsWith("SIP/2.0/TCP "), "the front's Via names TCP: " + invite);
        carol.answer(invite, 180, "Ringing", "carol-" + call.id);
        caller.await("180 from the phone on TCP", SOON, m -> m.isResponse(180, "INVITE") && call.is(m));
        carol.answer(invite, 200, "OK", "carol-" + call.id);
        var ok = caller.await("200 from the phone on TCP", SOON, m -> m.isResponse(200, "INVITE") && call.is(m));
        assertTrue(ok.header("Contact").contains(carol.contact()), "the 200 came from the phone on TCP: " + ok);
        call.ack2xx(ok);
        carol.await("the ACK down its connection", SOON, m -> m.isRequest("ACK") && call.is(m));
        call.bye(ok, 2);
        var bye = carol.await("the BYE down its connection", SOON, m -> m.isRequest("BYE") && call.is(m));
        carol.answer(bye, 200, "OK", null);
        caller.await("200 to the BYE from the phone on TCP", SOON, m -> m.isResponse(200, "BYE") && call.is(m));
        for (ScriptedPhone other : new ScriptedPhone[] {bob, silent, second}) {
            assertNull(other.poll(Duration.ofMillis(300), m -> call.is(m)), "only the phone on TCP is rung");
        }

        Scrape after = Scrape.of(status);
        assertEquals(1, after.value(keptOverStreams) - before.value(keptOverStreams),
                "the front kept the call to the phone on TCP");
        assertEquals(1, after.value(kept) - before.value(kept), "as a kept call: the node only redirected it");
    }

    /** REGISTERs a phone's contact for its user through the stateless front, with q. */
    private void register(ScriptedPhone phone, double q) {
        var answer = phone.register(modes.get("stateless"), DOMAIN, String.valueOf(q), SOON);
        assertEquals(200, answer.status(), "REGISTER of " + phone.contact() + ": " + answer);
    }

    private Call invite(InetSocketAddress front, String callee) {
        var call = new Call(front, callee, ScriptedPhone.newId("call"), ScriptedPhone.newBranch());
        caller.send(front,
                "INVITE " + call.uri() + " SIP/2.0",
                "Via: " + caller.via(call.branch),
                "Max-Forwards: 70",
                "From: <sip:alice@" + DOMAIN + ">;tag=" + call.id,
                "To: <" + call.uri() + ">",
                "Call-ID: " + call.id,
                "CSeq: 1 INVITE",
                "Contact: <" + caller.contact() + ">");
        return call;
    }

    /** The caller's side of one call: what its ACK, CANCEL and BYE need. Requests in a dialog go to the front, as SIPp sends them. */
    private final class Call {
        final InetSocketAddress front;
        final String callee;
        final String id;
        final String branch;

        Call(InetSocketAddress front, String callee, String id, String branch) {
            this.front = front;
            this.callee = callee;
            this.id = id;
            this.branch = branch;
        }

        String uri() {
            return "sip:" + callee + "@" + DOMAIN;
        }

        boolean is(ScriptedPhone.Message m) {
            return id.equals(m.header("Call-ID"));
        }

        /** The ACK of a failure answer: the INVITE's branch, hop by hop (RFC 3261 §17.1.1.3). */
        void ackFailure(ScriptedPhone.Message answer) {
            caller.send(front,
                    "ACK " + uri() + " SIP/2.0",
                    "Via: " + caller.via(branch),
                    "Max-Forwards: 70",
                    "From: <sip:alice@" + DOMAIN + ">;tag=" + id,
                    "To: " + answer.header("To"),
                    "Call-ID: " + id,
                    "CSeq: 1 ACK");
        }

        void cancel() {
            caller.send(front,
                    "CANCEL " + uri() + " SIP/2.0",
                    "Via: " + caller.via(branch),
                    "Max-Forwards: 70",
                    "From: <sip:alice@" + DOMAIN + ">;tag=" + id,
                    "To: <" + uri() + ">",
                    "Call-ID: " + id,
                    "CSeq: 1 CANCEL");
        }

        /** The ACK of a 2xx: a request of the dialog (RFC 3261 §13.2.2.4). */
        void ack2xx(ScriptedPhone.Message ok) {
            inDialog("ACK", ok, 1, ScriptedPhone.newBranch());
        }

        /** Sends a BYE; returns its branch. */
        String bye(ScriptedPhone.Message ok, int cseq) {
            String byeBranch = ScriptedPhone.newBranch();
            inDialog("BYE", ok, cseq, byeBranch);
            return byeBranch;
        }

        void byeAgain(ScriptedPhone.Message ok, int cseq, String byeBranch) {
            inDialog("BYE", ok, cseq, byeBranch);
        }

        /** A request of the dialog the 2xx set up: to its Contact, along its Record-Route reversed. */
        private void inDialog(String method, ScriptedPhone.Message ok, int cseq, String requestBranch) {
            List<String> routes = new ArrayList<>(ok.listed("Record-Route"));
            java.util.Collections.reverse(routes);
            var lines = new ArrayList<String>(List.of(
                    method + " " + contactUri(ok) + " SIP/2.0",
                    "Via: " + caller.via(requestBranch),
                    "Max-Forwards: 70",
                    "From: <sip:alice@" + DOMAIN + ">;tag=" + id,
                    "To: " + ok.header("To"),
                    "Call-ID: " + id,
                    "CSeq: " + cseq + " " + method));
            routes.forEach(r -> lines.add("Route: " + r));
            caller.send(front, lines.toArray(String[]::new));
        }

        private static String contactUri(ScriptedPhone.Message ok) {
            String contact = ok.header("Contact");
            int open = contact.indexOf('<');
            return open < 0 ? contact.split(";")[0] : contact.substring(open + 1, contact.indexOf('>'));
        }
    }

    /** Starts a front on {@code port} in {@code mode} with the deployment's jar; returns when it says both nodes are up. */
    private InetSocketAddress startFront(String mode, int port) {
        Path jar = Command.ROOT.resolve("src/front/target/p2psip-front.jar");
        Path log = Command.WORK.resolve("front-state-" + mode + ".log");
        try {
            Files.createDirectories(log.getParent());
            Process process = new ProcessBuilder("java", "-jar", jar.toString(),
                    "--listen", "127.0.0.1:" + port,
                    "--nodes", deployment.node(0) + "," + deployment.node(1),
                    "--policy", "rr", "--state", mode, "--branch-timeout", BRANCH_TIMEOUT,
                    "--status", "127.0.0.1:" + (port + 3000), // its counters, as deploy gives a front its status page
                    "--warmup-requests", "2000") // as the deployment's front (Deployment)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            fronts.add(process);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!(Files.readString(log).contains("listening on") && countUp(Files.readString(log)) >= 2)) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    fail("the " + mode + " front did not start with both nodes up; see " + log);
                }
                Thread.sleep(100); // poll interval of a condition
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        return new InetSocketAddress("127.0.0.1", port);
    }

    private static long countUp(String log) {
        return log.lines().filter(l -> l.endsWith(") is up")).count();
    }
}
