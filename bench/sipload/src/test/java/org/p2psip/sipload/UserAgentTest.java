package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A phone's answers to what reaches it over its connection (RFC 3261 §8.2.6, §12.1.1, §9.2). */
class UserAgentTest {
    private static final String INVITE = "INVITE sip:alice@127.0.0.7:40123;transport=tcp SIP/2.0\r\n"
            + "Via: SIP/2.0/TCP 127.0.0.1:31000;branch=z9hG4bKproxy\r\n"
            + "v: SIP/2.0/UDP 10.0.0.9:5060;branch=z9hG4bKcaller, SIP/2.0/UDP 10.0.0.8;branch=z9hG4bKfirst\r\n"
            + "Record-Route: <sip:127.0.0.1:31000;transport=tcp;lr>\r\n"
            + "Record-Route: <sip:127.0.0.1:31000;transport=udp;lr>\r\n"
            + "From: \"Bob\" <sip:bob@p2psip.test>;tag=bob1\r\n"
            + "To: <sip:alice@p2psip.test>\r\n"
            + "Call-ID: call-7@10.0.0.9\r\nCSeq: 4 INVITE\r\nContent-Length: 0\r\n\r\n";
    private Phone phone;

    @BeforeEach
    void phone() {
        phone = new Phone(new User("alice", "p2psip.test", "pw"));
        phone.via = new RegisterRequest.Local("127.0.0.7", 40123);
        phone.contactUri = RegisterRequest.contactUri(phone.user, phone.via, "tcp");
    }

    @Test
    void anInviteRingsThenIsAnsweredWithTheDialogsHeadersAndAnSdp() {
        List<String> answers = answer(new UserAgent(new Ids(), 0), INVITE);
        assertEquals(2, answers.size());
        assertTrue(answers.get(0).startsWith("SIP/2.0 180 Ringing\r\n"), answers.get(0));
        String ok = answers.get(1);
        assertTrue(ok.startsWith("SIP/2.0 200 OK\r\n"), ok);
        List<String> lines = List.of(ok.split("\r\n"));
        assertEquals(List.of("Via: SIP/2.0/TCP 127.0.0.1:31000;branch=z9hG4bKproxy",
                "Via: SIP/2.0/UDP 10.0.0.9:5060;branch=z9hG4bKcaller, SIP/2.0/UDP 10.0.0.8;branch=z9hG4bKfirst"),
                lines.stream().filter(l -> l.startsWith("Via: ")).toList(), "every Via, in order");
        assertEquals(List.of("Record-Route: <sip:127.0.0.1:31000;transport=tcp;lr>",
                "Record-Route: <sip:127.0.0.1:31000;transport=udp;lr>"),
                lines.stream().filter(l -> l.startsWith("Record-Route: ")).toList(), "copied, in order");
        assertTrue(lines.contains("To: <sip:alice@p2psip.test>;tag=" + phone.uaTag), ok);
        assertTrue(answers.get(0).contains("\r\nTo: <sip:alice@p2psip.test>;tag=" + phone.uaTag + "\r\n"),
                "the 180 has the same tag");
        assertTrue(lines.contains("Contact: <sip:alice@127.0.0.7:40123;transport=tcp>"), ok);
        assertTrue(lines.contains("From: \"Bob\" <sip:bob@p2psip.test>;tag=bob1"), ok);
        assertTrue(lines.contains("CSeq: 4 INVITE") && lines.contains("Call-ID: call-7@10.0.0.9"), ok);
        assertTrue(lines.contains("Content-Type: application/sdp"), ok);
        String body = ok.substring(ok.indexOf("\r\n\r\n") + 4);
        assertTrue(lines.contains("Content-Length: " + body.length()), ok);
        assertTrue(body.contains("c=IN IP4 127.0.0.7\r\n") && body.contains("m=audio "), body);
        assertEquals(1, phone.callsAnswered);
    }

    @Test
    void otherRequestsGet200WithoutDialogHeadersAndAckNothing() {
        var agent = new UserAgent(new Ids(), 0);
        for (String method : List.of("BYE", "OPTIONS", "MESSAGE")) {
            String request = INVITE.replace("INVITE", method);
            List<String> answers = answer(agent, request);
            assertEquals(1, answers.size());
            assertTrue(answers.get(0).startsWith("SIP/2.0 200 OK\r\n"), answers.get(0));
            assertTrue(!answers.get(0).contains("Record-Route") && !answers.get(0).contains("Contact"), answers.get(0));
        }
        assertEquals(List.of(), answer(agent, INVITE.replace("INVITE", "ACK")));
        assertEquals(0, phone.callsAnswered);
    }

    @Test
    void aCancelWhileRingingEndsTheInviteWith487() {
        var agent = new UserAgent(new Ids(), 5000);
        assertEquals(1, answer(agent, INVITE).size(), "180 now, the 200 after ringing");
        List<String> answers = answer(agent, INVITE.replace("INVITE", "CANCEL").replace("CSeq: 4 CANCEL", "CSeq: 4 CANCEL"));
        assertEquals(2, answers.size());
        assertTrue(answers.get(0).startsWith("SIP/2.0 200 OK\r\n") && answers.get(0).contains("CSeq: 4 CANCEL"));
        assertTrue(answers.get(1).startsWith("SIP/2.0 487 Request Terminated\r\n")
                && answers.get(1).contains("CSeq: 4 INVITE"), answers.get(1));
        assertNull(agent.ringEnded(phone, "z9hG4bKproxy"), "cancelled: no 200 after ringing");
        assertEquals(0, phone.callsAnswered);
    }

    private List<String> answer(UserAgent agent, String request) {
        return agent.answer(Request.parse(request.getBytes(StandardCharsets.UTF_8)), phone).stream()
                .map(b -> new String(b, StandardCharsets.UTF_8)).toList();
    }
}
