package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The REGISTERs the client sends (RFC 3261 §10.2) and what it reads of responses. */
class RegisterRequestTest {
    private static final RegisterRequest.Local HERE = new RegisterRequest.Local("10.0.0.1", 5099);

    @Test
    void aRegisterNamesTheAorInToAndFromAndTheLoadInViaAndContact() {
        Phone phone = new Phone(new User("alice", "p2psip.test", "pw"));
        phone.callId = "call-1";
        phone.fromTag = "tag-1";
        phone.cseq = 7;
        List<String> lines = lines(RegisterRequest.build(HERE, phone, "z9hG4bKb1", 600, null));
        assertEquals("REGISTER sip:p2psip.test SIP/2.0", lines.get(0));
        assertTrue(lines.contains("Via: SIP/2.0/UDP 10.0.0.1:5099;branch=z9hG4bKb1;rport"), lines.toString());
        assertTrue(lines.contains("From: <sip:alice@p2psip.test>;tag=tag-1"), lines.toString());
        assertTrue(lines.contains("To: <sip:alice@p2psip.test>"), lines.toString());
        assertTrue(lines.contains("Call-ID: call-1"), lines.toString());
        assertTrue(lines.contains("CSeq: 7 REGISTER"), lines.toString());
        assertTrue(lines.contains("Contact: <sip:alice@10.0.0.1:5099>"), lines.toString());
        assertTrue(lines.contains("Expires: 600"), lines.toString());
        assertTrue(lines.contains("Max-Forwards: 70"), lines.toString());
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("Authorization")), lines.toString());
    }

    @Test
    void anAnswerCarriesAuthorizationAndTheMessageEndsWithAnEmptyBody() {
        Phone phone = new Phone(new User("alice", "p2psip.test", "pw"));
        String text = new String(RegisterRequest.build(HERE, phone, "z9hG4bKb2", 3600, "Digest username=\"alice\""),
                StandardCharsets.UTF_8);
        assertTrue(text.contains("\r\nAuthorization: Digest username=\"alice\"\r\n"), text);
        assertTrue(text.endsWith("Content-Length: 0\r\n\r\n"), text);
    }

    @Test
    void aResponseIsMatchedByItsTopViasBranchAndKeepsEveryChallenge() {
        String text = "SIP/2.0 401 Unauthorized\r\n"
                + "v: SIP/2.0/UDP 10.0.0.1:5099;rport=5099;branch=z9hG4bKAb.1;received=10.0.0.1, SIP/2.0/UDP x;branch=other\r\n"
                + "Via: SIP/2.0/UDP y;branch=third\r\n"
                + "WWW-Authenticate: Digest realm=\"a\", nonce=\"n\", algorithm=SHA-256\r\n"
                + "www-authenticate: Digest realm=\"a\", nonce=\"n\", algorithm=MD5\r\n"
                + "Content-Length: 0\r\n\r\n";
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Response response = Response.parse(bytes, bytes.length);
        assertEquals(401, response.status());
        assertEquals("z9hG4bKAb.1", response.branch());
        assertEquals(2, response.wwwAuthenticate().size());
    }

    @Test
    void aRequestOrGarbageIsNoResponse() {
        byte[] request = "OPTIONS sip:x SIP/2.0\r\nVia: SIP/2.0/UDP h;branch=z\r\n\r\n".getBytes(StandardCharsets.UTF_8);
        assertEquals(null, Response.parse(request, request.length));
        byte[] garbage = "SIP/2.0 abc".getBytes(StandardCharsets.UTF_8);
        assertEquals(null, Response.parse(garbage, garbage.length));
    }

    private static List<String> lines(byte[] message) {
        return List.of(new String(message, StandardCharsets.UTF_8).split("\r\n"));
    }
}
