package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.parser.StringMsgParser;
import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import java.net.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sip.TransactionState;
import javax.sip.header.RetryAfterHeader;
import org.junit.jupiter.api.Test;

class ScreenTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.2", 6001);

    private final List<byte[]> sent = new ArrayList<>();
    private final List<InetSocketAddress> sentTo = new ArrayList<>();
    private final Map<String, TransactionState> transactions = new HashMap<>();
    private long nowMillis = 1_000_000;
    private final FinalAnswers answers = new FinalAnswers(StackLink.FINAL_ANSWER_NANOS, nowMillis * 1_000_000);
    private final StackLink link = new StackLink();
    private final Intake intake = attached(0);
    private final Screen screen = new Screen(transactions::get, (m, to) -> {
        sent.add(m);
        sentTo.add(to);
    }, () -> nowMillis, () -> nowMillis * 1_000_000, answers, link);

    /** An application's intake on this test's link, as a node's attaches to its JVM's. */
    private Intake attached(int perSourceLimit) {
        Intake made = new Intake(new Intake.Settings(Duration.ofMillis(100), Duration.ofMillis(200), 0.3, 7, perSourceLimit),
                link);
        link.attach(made);
        return made;
    }

    @Test
    void aStartingNodeAnswersNewRequests503NotReadyWithRetryAfter() throws Exception {
        assertFalse(screen.passes(queued(register("z9hG4bK-1", ""), 0)));

        assertEquals(List.of(CLIENT), sentTo, "answered where the request came from (rport)");
        SIPResponse answer = onlyAnswer();
        assertEquals(503, answer.getStatusCode());
        assertEquals("Not Ready", answer.getReasonPhrase());
        int retryAfter = ((RetryAfterHeader) answer.getHeader(RetryAfterHeader.NAME)).getRetryAfter();
        assertTrue(retryAfter >= 7 && retryAfter <= 14, "Retry-After between the configured 7 s and twice it: " + retryAfter);
        assertNotNull(answer.getToTag(), "a UAS's final answer carries a To tag");
        assertEquals("1@client", answer.getCallId().getCallId());
        assertEquals(1, answer.getCSeq().getSeqNumber());
        Via top = answer.getTopmostVia();
        assertEquals("z9hG4bK-1", top.getBranch());
        assertEquals("127.0.0.2", top.getReceived());
        assertEquals(6001, top.getRPort(), "rport filled in with the source port");
        assertEquals(2, answer.getViaHeaders().size(), "every Via of the request, in order");
        assertEquals(1, intake.counters().get("refused-not-ready"));
    }

    @Test
    void aSourcePastItsLimitGets503SourceOverLimitWhileAnotherSourceIsServed() throws Exception {
        Intake intake = attached(3);
        intake.open();
        for (int i = 0; i < 3; i++) {
            assertTrue(screen.passes(queued(register("z9hG4bK-s" + i, ""), 0)), "within the limit");
        }
        assertFalse(screen.passes(queued(register("z9hG4bK-s3", ""), 0)));
        SIPResponse answer = onlyAnswer();
        assertEquals(503, answer.getStatusCode());
        assertEquals("Source Over Limit", answer.getReasonPhrase());
        assertNotNull(answer.getHeader(RetryAfterHeader.NAME));
        byte[] other = register("z9hG4bK-o1", "");
        assertTrue(screen.passes(new DatagramQueuedMessageDispatch(
                new DatagramPacket(other, other.length, new InetSocketAddress("127.0.0.3", 6001)), nowMillis)),
                "another source is still served");
        nowMillis += 1000;
        assertTrue(screen.passes(queued(register("z9hG4bK-s4", ""), 0)), "a new second, a new count");
        assertEquals(1, intake.counters().get("refused-source"));
    }

    @Test
    void theWaitOfEveryRequestAddsToTheWaitsAResponsesDoesNot() {
        intake.open();
        screen.passes(queued(register("z9hG4bK-w1", ""), 3));
        screen.passes(queued(register("z9hG4bK-w2", ""), 250)); // late, yet its wait counts
        screen.passes(queued(text("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-x\r\n"
                + "From: <sip:a@b>;tag=1\r\nTo: <sip:a@b>;tag=2\r\nCall-ID: 9\r\nCSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n"), 40));
        assertEquals(new Intake.Waits(2, 253_000_000L), intake.waits());
    }

    @Test
    void anOpenNodeWithAYoungQueuePassesEverything() {
        intake.open();
        assertTrue(screen.passes(queued(register("z9hG4bK-2", ""), 5)));
        assertTrue(sent.isEmpty());
    }

    @Test
    void requestsThatWaitedTooLongForAWholeIntervalGet503Overloaded() throws Exception {
        intake.open();
        assertTrue(screen.passes(queued(register("z9hG4bK-a", ""), 150)), "late, but not yet for an interval");
        nowMillis += 100;
        assertFalse(screen.passes(queued(register("z9hG4bK-b", ""), 150)));
        assertEquals("Overloaded", onlyAnswer().getReasonPhrase());
        assertEquals(1, intake.counters().get("refused-late"));
        assertTrue(screen.passes(queued(register("z9hG4bK-c", ""), 60)), "one within the target is served");
    }

    @Test
    void aRetransmittedRegisterGetsTheKeptFinalAnswerAgainUntilTimerJAndReachesTheStackNoMore() throws Exception {
        intake.open();
        byte[] request = register("z9hG4bK-kept", "");
        assertTrue(screen.passes(queued(request, 0)));
        byte[] ok = text("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:6001;branch=z9hG4bK-kept\r\n"
                + "CSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n");
        var client = new InetSocketAddress("127.0.0.2", 6001);
        answers.put("z9hg4bk-kept", new FinalAnswers.Answer("REGISTER", ok, client.getAddress(), client.getPort()),
                nowMillis * 1_000_000);

        nowMillis += 31_000;
        assertFalse(screen.passes(queued(request, 0)), "answered here, never the stack's again");
        assertArrayEquals(ok, sent.get(0), "the very bytes the node sent");
        assertEquals(List.of(client), sentTo);
        assertEquals(1, intake.counters().get("retransmissions-answered"));
        sent.clear();
        sentTo.clear();
        answers.put("z9hg4bk-other", new FinalAnswers.Answer("REGISTER", ok, client.getAddress(), client.getPort()),
                nowMillis * 1_000_000);
        assertTrue(screen.passes(queued(request("OPTIONS", "z9hG4bK-other", ""), 0)),
                "another method with that branch is not its retransmission");
        assertEquals(List.of(), sent);
    }

    @Test
    void aRetransmissionOfARequestLetThroughIsNeverRefusedNorTakenForANewOneWhileItIsAtWork() {
        intake.open();
        byte[] request = register("z9hG4bK-served", "");
        assertTrue(screen.passes(queued(request, 0)));
        intake.close(); // every new request is refused now
        assertFalse(screen.passes(queued(request, 0)), "its retransmission is dropped, as its transaction would");
        assertEquals(List.of(), sent, "not refused");
        assertEquals(1, intake.counters().get("retransmissions-absorbed"));
        assertFalse(screen.passes(queued(register("z9hG4bK-other", ""), 0)), "a new one is refused");
        assertEquals("Stopping", onlyAnswerReason());
    }

    @Test
    void anInvitesRetransmissionAndItsCancelStillGoToTheStack() {
        intake.open();
        byte[] invite = request("INVITE", "z9hG4bK-call", "");
        assertTrue(screen.passes(queued(invite, 0)));
        assertTrue(screen.passes(queued(invite, 0)), "the INVITE server transaction answers its retransmissions");
        assertTrue(screen.passes(queued(request("CANCEL", "z9hG4bK-call", ""), 0)), "a CANCEL is a request of its own");
    }

    @Test
    void aRetransmissionOfARefusedRequestGetsTheSame503() {
        byte[] request = register("z9hG4bK-r", "");
        screen.passes(queued(request, 0));
        screen.passes(queued(request, 0));
        assertEquals(2, sent.size());
        assertArrayEquals(sent.get(0), sent.get(1), "the same answer, To tag included");
    }

    @Test
    void aRequestOfAnotherSipVersionIs505EvenOnAnOpenNodeAndItsRetransmissionToo() throws Exception {
        intake.open();
        String text = new String(register("z9hG4bK-v7", ""), StandardCharsets.ISO_8859_1).replace(" SIP/2.0\r\nVia", " SIP/7.0\r\nVia");
        byte[] request = text.getBytes(StandardCharsets.ISO_8859_1);
        assertFalse(screen.passes(queued(request, 0)), "never reaches the stack, whose parser reads it as SIP/2.0");
        SIPResponse answer = onlyAnswer();
        assertEquals(505, answer.getStatusCode());
        assertEquals("Version Not Supported", answer.getReasonPhrase());
        assertEquals(null, answer.getHeader(RetryAfterHeader.NAME), "no use retrying it");
        assertFalse(screen.passes(queued(request, 0)));
        assertEquals(505, onlyAnswer().getStatusCode(), "the retransmission too");
        assertEquals(2, intake.counters().get("refused-version"));
        assertTrue(screen.passes(queued(register("z9hG4bK-v2", ""), 0)), "SIP/2.0 passes");
    }

    @Test
    void aRequestThatIsNotValidSipIsAnswered400WithItsDefectEvenWhileTheNodeStarts() throws Exception {
        byte[] request = text(new String(register("z9hG4bK-nocid", ""), StandardCharsets.ISO_8859_1)
                .replace("Call-ID: 1@client\r\n", ""));
        assertFalse(screen.passes(queued(request, 0)), "never reaches the stack, which drops it unanswered");
        assertEquals(List.of(CLIENT), sentTo, "answered where the request came from (rport)");
        SIPResponse answer = onlyAnswer();
        assertEquals(400, answer.getStatusCode());
        assertEquals("Missing Call-ID Header", answer.getReasonPhrase());
        assertEquals(null, answer.getHeader(RetryAfterHeader.NAME), "no use retrying it");
        assertNotNull(answer.getToTag(), "a UAS's final answer carries a To tag");
        assertEquals("z9hG4bK-nocid", answer.getTopmostVia().getBranch());
        assertEquals(6001, answer.getTopmostVia().getRPort(), "rport filled in with the source port");
        assertEquals(2, answer.getViaHeaders().size(), "every Via of the request, in order");
        assertEquals(1, intake.counters().get("refused-malformed"));
        assertEquals(0, intake.counters().get("refused-not-ready"), "refused for what it is, not for when it came");
    }

    @Test
    void anOpenNodeAnswersEachKindOfInvalidRequestWithItsOwnStatusAndReason() throws Exception {
        intake.open();
        Map<String, String> requests = Map.of(
                "416 Unsupported URI Scheme", replace(register("z9hG4bK-tel", ""), "REGISTER sip:127.0.0.1:5070",
                        "REGISTER tel:+15555550100"),
                "400 Malformed Request-Line", replace(register("z9hG4bK-sp", ""), " SIP/2.0\r\n", " SIP/2.0 \r\n"),
                "400 Invalid Max-Forwards", replace(register("z9hG4bK-mf", ""), "Max-Forwards: 70", "Max-Forwards: 256"),
                "400 CSeq Method Does Not Match", replace(register("z9hG4bK-cm", ""), "CSeq: 1 REGISTER", "CSeq: 1 INVITE"),
                "400 Multiple To Headers", replace(register("z9hG4bK-tt", ""), "To: <sip:alice@p2psip.test>\r\n",
                        "To: <sip:alice@p2psip.test>\r\nt: <sip:bob@p2psip.test>\r\n"),
                "400 Body Shorter Than Content-Length", replace(register("z9hG4bK-cl", ""), "Content-Length: 0", "Content-Length: 10"),
                "400 Malformed From Header", replace(register("z9hG4bK-dn", ""), "From: <", "From: Bell, Alexander <"),
                "505 Version Not Supported", replace(register("z9hG4bK-v3", ""), " SIP/2.0\r\nVia", " SIP/3.0\r\nVia"));
        for (var expected : requests.entrySet()) {
            assertFalse(screen.passes(queued(text(expected.getValue()), 0)), expected.getKey());
            SIPResponse answer = onlyAnswer();
            assertEquals(expected.getKey(), answer.getStatusCode() + " " + answer.getReasonPhrase());
        }
        assertEquals(1, intake.counters().get("refused-scheme"));
        assertEquals(1, intake.counters().get("refused-version"));
        assertEquals(6, intake.counters().get("refused-malformed"));
    }

    @Test
    void aRequestWhoseViaDoesNotReadIsAnsweredAtItsSourceAndOneWithoutViaIsLeftToTheStack() throws Exception {
        intake.open();
        byte[] badPort = text(replace(register("z9hG4bK-port", ""), "127.0.0.1:6001;", "127.0.0.1:sixty;"));
        assertFalse(screen.passes(queued(badPort, 0)));
        assertEquals(List.of(CLIENT), sentTo, "its source, since its Via names no port");
        assertEquals("Malformed Via Header", onlyAnswerReason());
        byte[] noVia = text(new String(register("z9hG4bK-none", ""), StandardCharsets.ISO_8859_1)
                .replaceFirst("Via: [^\r]*\r\n", ""));
        assertTrue(screen.passes(queued(noVia, 0)), "nowhere to answer it: the stack drops it, as it did");
        assertTrue(sent.isEmpty());
    }

    @Test
    void validButOddRequestsPass() {
        intake.open();
        String folded = replace(register("z9hG4bK-fold", ""), "Contact: <sip:alice@127.0.0.1:6001>",
                "m :\r\n  \"Alice \\\"A\\\"\"<sip:alice@127.0.0.1:6001>\r\n\t;expires = 60 , <sip:a%6Cice@192.0.2.1;lr>");
        String oddMethod = replace(replace(register("z9hG4bK-odd", ""), "REGISTER sip:", "~Odd.Method-1 sip:alice@"),
                "CSeq: 1 REGISTER", "cseq: 0001\r\n ~Odd.Method-1");
        assertTrue(screen.passes(queued(text(folded), 0)), folded);
        assertTrue(screen.passes(queued(text(oddMethod), 0)), oddMethod);
        assertTrue(sent.isEmpty());
    }

    @Test
    void theAckOfAnInviteTheIntakeAnsweredEndsInTheIntake() throws Exception {
        byte[] invite = text(replace(request("INVITE", "z9hG4bK-inv", ""), "Max-Forwards: 70", "Max-Forwards: 300"));
        assertFalse(screen.passes(queued(invite, 0)));
        assertEquals("Invalid Max-Forwards", onlyAnswerReason());
        assertFalse(screen.passes(queued(request("ACK", "z9hG4bK-inv", ";tag=p2psip-1"), 0)),
                "no transaction awaits it: the container would log it as a stray request");
        byte[] refused503 = request("INVITE", "z9hG4bK-inv503", "");
        assertFalse(screen.passes(queued(refused503, 0)));
        assertEquals("Not Ready", onlyAnswerReason());
        assertFalse(screen.passes(queued(request("ACK", "z9hG4bK-inv503", ";tag=p2psip-2"), 0)));
        assertEquals(2, intake.counters().get("acks-absorbed"));
        assertTrue(screen.passes(queued(request("ACK", "z9hG4bK-other", ";tag=x"), 0)), "an ACK of the stack's passes");
    }

    @Test
    void anRfc2543RequestGetsABranchDerivedFromItsTransactionSoItsAckAndCancelMatchIt() {
        intake.open();
        String invite = replace(request("INVITE", "z9hG4bK-x", ""), ";branch=z9hG4bK-x;rport, SIP/2.0/UDP 10.0.0.1;branch=z9hG4bK-below", "");
        String ack = replace(replace(invite, "INVITE sip:", "ACK sip:"), "CSeq: 1 INVITE", "CSeq: 1 ACK")
                .replace("To: <sip:alice@p2psip.test>", "To: <sip:alice@p2psip.test>;tag=callee");
        String cancel = replace(replace(invite, "INVITE sip:", "CANCEL sip:"), "CSeq: 1 INVITE", "CSeq: 1 CANCEL");
        String other = replace(invite, "Call-ID: 1@client", "Call-ID: 2@client");
        String branch = branchAfterScreen(invite);
        assertTrue(branch.startsWith("z9hG4bK-2543-"), branch);
        assertEquals(branch, branchAfterScreen(invite), "its retransmission");
        assertEquals(branch, branchAfterScreen(cancel), "its CANCEL");
        assertFalse(branch.equals(branchAfterScreen(other)), "another request");
        assertEquals(branch, branchAfterScreen(ack), "the ACK of its answer (a To tag, the CSeq method ACK)");
        String withCookie = new String(register("z9hG4bK-has", ""), StandardCharsets.ISO_8859_1);
        assertEquals("z9hG4bK-has", branchOf(screenAndRead(withCookie)), "an RFC 3261 branch is left as it is");
    }

    private String branchAfterScreen(String request) {
        return branchOf(screenAndRead(request));
    }

    private String screenAndRead(String request) {
        var queued = queued(text(request), 0);
        assertTrue(screen.passes(queued), request);
        var packet = queued.packet;
        return new String(packet.getData(), packet.getOffset(), packet.getLength(), StandardCharsets.ISO_8859_1);
    }

    private static String branchOf(String request) {
        String branch = Intake.branchIn(request);
        int at = request.toLowerCase().indexOf(";branch=" + branch);
        return request.substring(at + 8, at + 8 + branch.length());
    }

    private static String replace(byte[] message, String what, String with) {
        return replace(new String(message, StandardCharsets.ISO_8859_1), what, with);
    }

    private static String replace(String message, String what, String with) {
        assertTrue(message.contains(what), "the request holds " + what);
        return message.replace(what, with);
    }

    @Test
    void retryAftersOfManyRequestsSpreadOverTheirRangeToSpreadTheClientsReturn() {
        var seen = new java.util.TreeSet<Long>();
        for (int i = 0; i < 200; i++) {
            seen.add(Screen.retryAfter(5, "z9hG4bK-" + i));
        }
        assertEquals(5L, seen.first());
        assertEquals(10L, seen.last());
        assertEquals(6, seen.size(), "every second from 5 to 10 used");
    }

    @Test
    void aRetransmissionWhoseTransactionIsAtWorkIsDroppedAndOneWithAnAnswerPasses() {
        transactions.put("z9hg4bk-busy", TransactionState.TRYING);
        transactions.put("z9hg4bk-done", TransactionState.COMPLETED);
        assertFalse(screen.passes(queued(register("z9hG4bK-BUSY", ""), 0)));
        assertTrue(sent.isEmpty(), "dropped, as the stack drops it in Trying");
        assertEquals(1, intake.counters().get("retransmissions-absorbed"));
        assertTrue(screen.passes(queued(register("z9hG4bK-done", ""), 0)), "the stack sends its final answer again");
    }

    @Test
    void responsesAcksDialogsAndExemptRequestsAlwaysPass() {
        intake.exempt("DHT-PeerID");
        assertTrue(screen.passes(queued(text("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-x\r\n"
                + "From: <sip:a@b>;tag=1\r\nTo: <sip:a@b>;tag=2\r\nCall-ID: 9\r\nCSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n"), 0)));
        assertTrue(screen.passes(queued(request("ACK", "z9hG4bK-ack", ""), 0)));
        assertTrue(screen.passes(queued(request("BYE", "z9hG4bK-bye", ";tag=callee"), 0)));
        assertTrue(screen.passes(queued(with(register("z9hG4bK-peer", ""), "DHT-PeerID: 1234\r\n"), 0)));
        assertTrue(sent.isEmpty());
    }

    private String onlyAnswerReason() {
        try {
            return onlyAnswer().getReasonPhrase();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private SIPResponse onlyAnswer() throws Exception {
        assertEquals(1, sent.size(), "one answer sent");
        SIPResponse answer = (SIPResponse) new StringMsgParser().parseSIPMessage(sent.get(0), true, false, null);
        sent.clear();
        sentTo.clear();
        return answer;
    }

    private DatagramQueuedMessageDispatch queued(byte[] message, long waitedMillis) {
        return new DatagramQueuedMessageDispatch(new DatagramPacket(message, message.length, CLIENT),
                nowMillis - waitedMillis);
    }

    private static byte[] register(String branch, String toTag) {
        return request("REGISTER", branch, toTag);
    }

    private static byte[] request(String method, String branch, String toTag) {
        return text(method + " sip:127.0.0.1:5070 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:6001;branch=" + branch + ";rport, SIP/2.0/UDP 10.0.0.1;branch=z9hG4bK-below\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@p2psip.test>;tag=from1\r\n"
                + "To: <sip:alice@p2psip.test>" + toTag + "\r\n"
                + "Call-ID: 1@client\r\n"
                + "CSeq: 1 " + method + "\r\n"
                + "Contact: <sip:alice@127.0.0.1:6001>\r\n"
                + "Content-Length: 0\r\n\r\n");
    }

    private static byte[] with(byte[] message, String headerLine) {
        String text = new String(message, StandardCharsets.ISO_8859_1);
        return text(text.replace("Content-Length:", headerLine + "Content-Length:"));
    }

    private static byte[] text(String message) {
        return message.getBytes(StandardCharsets.ISO_8859_1);
    }
}
