package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.parser.StringMsgParser;
import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import java.net.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import javax.sip.header.ContactHeader;
import javax.sip.header.RetryAfterHeader;
import org.junit.jupiter.api.Test;

/** The screen answering INVITEs that ask for a redirect from a scripted directory, as a node's servlet attaches its own. */
class RedirectsTest {

    private static final InetSocketAddress FRONT = new InetSocketAddress("127.0.0.5", 5060);
    private static final String PATHED = "<sip:carol@10.0.0.7:5062;ob?Route=%3Csip:edge%4010.0.0.9%3Blr%3E>;expires=300;q=0.3";

    private final List<byte[]> sent = new ArrayList<>();
    private final List<InetSocketAddress> sentTo = new ArrayList<>();
    private long nowMillis = 5_000_000;
    private final FinalAnswers answers = new FinalAnswers(StackLink.FINAL_ANSWER_NANOS, nowMillis * 1_000_000);
    private final StackLink link = new StackLink();
    private final Intake intake = new Intake(new Intake.Settings(Duration.ofMillis(100), Duration.ofMillis(200), 0.3, 7, 0),
            link);
    private final Screen screen = new Screen(branch -> null, (m, to) -> {
        sent.add(m);
        sentTo.add(to);
    }, () -> nowMillis, () -> nowMillis * 1_000_000, answers, link);

    /** What the scripted directory was asked, and the lookups it has not answered yet. */
    private final List<String> asked = new ArrayList<>();
    private final List<CompletableFuture<Directory.Answer>> pending = new ArrayList<>();
    private boolean takesCalls = true;
    /** The last answer {@link #onlyAnswer} read, as sent. */
    private String lastText;

    RedirectsTest() {
        link.attach(intake);
        intake.open();
        intake.answerRedirects((uri, source) -> {
            asked.add(uri + " from " + source);
            if (!takesCalls) {
                return null;
            }
            var lookup = new CompletableFuture<Directory.Answer>();
            pending.add(lookup);
            return lookup;
        });
    }

    @Test
    void aRedirectIsAnswered302FromTheRequestsBytesWithTheContactsInTheDirectorysOrder() throws Exception {
        byte[] invite = invite("z9hG4bK-r1", "Request-Disposition: redirect\r\n");
        assertFalse(screen.passes(queued(invite)), "answered here, never the stack's");
        assertEquals(List.of("sip:carol@p2psip.test from /127.0.0.5:5060"), asked);
        assertEquals(List.of(), sent, "nothing before the lookup completes");

        pending.get(0).complete(new Directory.Answer(302, "Moved Temporarily",
                List.of("<sip:carol@10.0.0.5:5060>;expires=3600;q=1.0", "<sip:carol@10.0.0.6:5060>;expires=3599;q=0.5",
                        PATHED)));

        SIPResponse answer = onlyAnswer();
        assertEquals(302, answer.getStatusCode());
        assertEquals("Moved Temporarily", answer.getReasonPhrase());
        assertEquals(List.of("<sip:carol@10.0.0.5:5060>;expires=3600;q=1.0", "<sip:carol@10.0.0.6:5060>;expires=3599;q=0.5",
                PATHED), contactLines(lastText), "the Contact values as the directory gave them, in its order");
        List<String> uris = new ArrayList<>();
        for (ListIterator<?> it = answer.getHeaders(ContactHeader.NAME); it.hasNext(); ) {
            uris.add(((ContactHeader) it.next()).getAddress().getURI().toString());
        }
        assertEquals("sip:carol@10.0.0.7:5062;ob?Route=%3Csip:edge%4010.0.0.9%3Blr%3E", uris.get(2),
                "the Path as an escaped Route header of the URI, which a SIP parser reads as one");
        assertNotNull(answer.getToTag(), "a UAS's final answer carries a To tag");
        assertEquals("call-r1", answer.getCallId().getCallId());
        assertEquals("z9hG4bK-r1", answer.getTopmostVia().getBranch());
        assertEquals(1, intake.counters().get("redirects-answered"));
    }

    @Test
    void aRetransmittedInviteGetsTheSameBytesAgainWithoutASecondLookupAndTheAckEndsHere() {
        byte[] invite = invite("z9hG4bK-r2", "d: Redirect, sequential\r\n");
        assertFalse(screen.passes(queued(invite)));
        assertFalse(screen.passes(queued(invite)), "a retransmission while the lookup runs is absorbed");
        assertEquals(List.of(), sent);
        pending.get(0).complete(new Directory.Answer(302, "Moved Temporarily", List.of("<sip:carol@10.0.0.5>")));
        byte[] first = sent.get(0);

        nowMillis += 10_000; // past what the screen remembers of recent branches, within Timer J
        assertFalse(screen.passes(queued(invite)));
        assertEquals(2, sent.size());
        assertArrayEquals(first, sent.get(1), "the very bytes, To tag included");
        assertEquals(1, asked.size(), "one lookup for the transaction");
        assertFalse(screen.passes(queued(ack("z9hG4bK-r2"))), "the ACK of the intake's answer never reaches the stack");
        assertEquals(2, sent.size(), "an ACK is answered nothing");
        assertEquals(1, intake.counters().get("acks-absorbed"));
        assertEquals(1, intake.counters().get("retransmissions-answered"));
    }

    @Test
    void anAckRightAfterTheAnswerEndsHereToo() {
        assertFalse(screen.passes(queued(invite("z9hG4bK-r3", "Request-Disposition: redirect\r\n"))));
        pending.get(0).complete(new Directory.Answer(404, "Not Found", List.of()));
        assertFalse(screen.passes(queued(ack("z9hG4bK-r3"))));
        assertEquals(1, intake.counters().get("acks-absorbed"));
    }

    @Test
    void anUnknownAorIs404WithoutContacts() throws Exception {
        assertFalse(screen.passes(queued(invite("z9hG4bK-r4", "Request-Disposition: redirect\r\n"))));
        pending.get(0).complete(new Directory.Answer(404, "Not Found", List.of()));
        SIPResponse answer = onlyAnswer();
        assertEquals(404, answer.getStatusCode());
        assertEquals("Not Found", answer.getReasonPhrase());
        assertEquals(null, answer.getHeader(ContactHeader.NAME));
        assertEquals(null, answer.getHeader(RetryAfterHeader.NAME));
    }

    @Test
    void aLookupThatTimesOutOrFailsIs503WithRetryAfter() throws Exception {
        assertFalse(screen.passes(queued(invite("z9hG4bK-r5", "Request-Disposition: redirect\r\n"))));
        assertFalse(screen.passes(queued(invite("z9hG4bK-r6", "Request-Disposition: redirect\r\n"))));
        pending.get(0).completeExceptionally(new TimeoutException("the DHT's deadline"));
        SIPResponse timedOut = onlyAnswer();
        assertEquals(503, timedOut.getStatusCode());
        assertEquals("Lookup Timeout", timedOut.getReasonPhrase());
        int retryAfter = ((RetryAfterHeader) timedOut.getHeader(RetryAfterHeader.NAME)).getRetryAfter();
        assertTrue(retryAfter >= 7 && retryAfter <= 14, "Retry-After between the configured 7 s and twice it: " + retryAfter);

        pending.get(1).completeExceptionally(new IllegalStateException("the DHT failed"));
        SIPResponse failed = onlyAnswer();
        assertEquals(503, failed.getStatusCode());
        assertEquals("Lookup Failed", failed.getReasonPhrase());
        assertNotNull(failed.getHeader(RetryAfterHeader.NAME));
    }

    @Test
    void aDirectorysOwn503GetsRetryAfterToo() throws Exception {
        assertFalse(screen.passes(queued(invite("z9hG4bK-r7", "Request-Disposition: redirect\r\n"))));
        pending.get(0).complete(new Directory.Answer(503, "DHT Timeout", List.of()));
        SIPResponse answer = onlyAnswer();
        assertEquals("DHT Timeout", answer.getReasonPhrase());
        assertNotNull(answer.getHeader(RetryAfterHeader.NAME));
    }

    @Test
    void anInviteWithoutTheDirectiveOrInADialogOrRequiringAnExtensionGoesToTheStack() {
        assertTrue(screen.passes(queued(invite("z9hG4bK-p1", ""))), "no Request-Disposition");
        assertTrue(screen.passes(queued(invite("z9hG4bK-p2", "Request-Disposition: proxy, redirected\r\n"))));
        assertTrue(screen.passes(queued(text(new String(invite("z9hG4bK-p3", "Request-Disposition: redirect\r\n"),
                StandardCharsets.ISO_8859_1).replace("To: <sip:carol@p2psip.test>", "To: <sip:carol@p2psip.test>;tag=t1")))),
                "a re-INVITE follows its dialog");
        assertTrue(screen.passes(queued(invite("z9hG4bK-p4", "Request-Disposition: redirect\r\nProxy-Require: foo\r\n"))),
                "the application answers 420");
        assertEquals(List.of(), asked, "the directory was never asked");
        assertEquals(List.of(), sent);
        assertTrue(screen.passes(queued(invite("z9hG4bK-p1", ""))), "its retransmission goes to the stack's transaction");
    }

    @Test
    void anInviteTheDirectoryDoesNotTakeGoesToTheStackAndIsCountedPassed() {
        takesCalls = false; // as the servlet does while it asks callers for credentials
        byte[] invite = invite("z9hG4bK-a1", "Request-Disposition: redirect\r\n");
        assertTrue(screen.passes(queued(invite)), "the container challenges it");
        assertEquals(1, asked.size());
        assertTrue(screen.passes(queued(invite)), "its retransmission too, to the stack's transaction");
        assertEquals(1, asked.size(), "asked once");
        assertEquals(1, intake.counters().get("redirects-passed"));
        assertEquals(0, intake.counters().get("redirects-answered"));
    }

    @Test
    void anOverloadedNodeRefusesARedirect503BeforeAnyLookup() throws Exception {
        intake.close();
        assertFalse(screen.passes(queued(invite("z9hG4bK-o1", "Request-Disposition: redirect\r\n"))));
        assertEquals("Stopping", onlyAnswer().getReasonPhrase());
        assertEquals(List.of(), asked);
    }

    private SIPResponse onlyAnswer() throws Exception {
        assertEquals(1, sent.size(), "one answer sent");
        assertEquals(List.of(FRONT), sentTo, "to the Via's address and port");
        lastText = new String(sent.get(0), StandardCharsets.ISO_8859_1);
        SIPResponse answer = (SIPResponse) new StringMsgParser().parseSIPMessage(sent.get(0), true, false, null);
        sent.clear();
        sentTo.clear();
        return answer;
    }

    private static List<String> contactLines(String message) {
        return message.lines().filter(l -> l.startsWith("Contact: ")).map(l -> l.substring(9)).toList();
    }

    private DatagramQueuedMessageDispatch queued(byte[] message) {
        return new DatagramQueuedMessageDispatch(new DatagramPacket(message, message.length, FRONT), nowMillis);
    }

    private static byte[] invite(String branch, String extra) {
        return text("INVITE sip:carol@p2psip.test SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.5:5060;branch=" + branch + "\r\n"
                + "Max-Forwards: 69\r\n"
                + "From: <sip:alice@p2psip.test>;tag=a1\r\n"
                + "To: <sip:carol@p2psip.test>\r\n"
                + "Call-ID: call-" + branch.substring(8) + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Contact: <sip:alice@127.0.0.5:5060>\r\n"
                + extra
                + "Content-Length: 0\r\n\r\n");
    }

    /** The ACK of a failure answer: the INVITE's branch (RFC 3261 §17.1.1.3). */
    private static byte[] ack(String branch) {
        return text("ACK sip:carol@p2psip.test SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.5:5060;branch=" + branch + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@p2psip.test>;tag=a1\r\n"
                + "To: <sip:carol@p2psip.test>;tag=" + Screen.tagOf(branch) + "\r\n"
                + "Call-ID: call-" + branch.substring(8) + "\r\n"
                + "CSeq: 1 ACK\r\n"
                + "Content-Length: 0\r\n\r\n");
    }

    private static byte[] text(String message) {
        return message.getBytes(StandardCharsets.ISO_8859_1);
    }
}
