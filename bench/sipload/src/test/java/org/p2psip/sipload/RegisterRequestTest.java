package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The REGISTERs the client sends (RFC 3261 §10.2) and what it reads of responses. */
class RegisterRequestTest {
    private static final RegisterRequest.Local HERE = new RegisterRequest.Local("10.0.0.1", 5099);

    @Test
    void aRegisterNamesTheAorInToAndFromAndTheLoadInViaAndContact() {
        Phone phone = phone(HERE, "udp");
        phone.callId = "call-1";
        phone.fromTag = "tag-1";
        phone.cseq = 7;
        List<String> lines = lines(RegisterRequest.build(phone, "udp", false, "z9hG4bKb1", 600, null));
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
        Phone phone = phone(HERE, "udp");
        String text = new String(RegisterRequest.build(phone, "udp", false, "z9hG4bKb2", 3600, "Digest username=\"alice\""),
                StandardCharsets.UTF_8);
        assertTrue(text.contains("\r\nAuthorization: Digest username=\"alice\"\r\n"), text);
        assertTrue(text.endsWith("Content-Length: 0\r\n\r\n"), text);
    }

    @Test
    void overTcpViaAndContactShowTheConnectionsAddressAndTheContactSaysTcp() {
        Phone phone = phone(new RegisterRequest.Local("127.0.0.7", 40123), "tcp");
        List<String> lines = lines(RegisterRequest.build(phone, "tcp", false, "z9hG4bKb3", 3600, null));
        assertTrue(lines.contains("Via: SIP/2.0/TCP 127.0.0.7:40123;branch=z9hG4bKb3;rport"), lines.toString());
        assertTrue(lines.contains("Contact: <sip:alice@127.0.0.7:40123;transport=tcp>"), lines.toString());
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("Supported")), lines.toString());
    }

    @Test
    void anOutboundClientNamesItsInstanceAndRegIdAndSupportsOutboundAndPath() {
        Phone phone = phone(new RegisterRequest.Local("127.0.0.7", 40123), "tcp");
        List<String> lines = lines(RegisterRequest.build(phone, "tcp", true, "z9hG4bKb4", 3600, null));
        String urn = "urn:uuid:" + UUID.nameUUIDFromBytes("sipload alice@p2psip.test".getBytes(StandardCharsets.UTF_8));
        assertTrue(lines.contains("Contact: <sip:alice@127.0.0.7:40123;transport=tcp>;+sip.instance=\"<" + urn
                + ">\";reg-id=1"), lines.toString());
        assertTrue(lines.contains("Supported: outbound, path"), lines.toString());
        assertEquals(urn, new Phone(new User("alice", "p2psip.test", "other")).instanceUrn(), "stable per user");
    }

    @Test
    void aRegistrationsOkToAnOutboundClientTellsRequireAndFlowTimer() {
        byte[] ok = ("SIP/2.0 200 OK\r\nVia: SIP/2.0/TCP h:1;branch=z9hG4bKx\r\nRequire: path, outbound\r\n"
                + "Flow-Timer: 120\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        Response response = Response.parse(ok, ok.length);
        assertTrue(response.requireOutbound());
        assertEquals(120, response.flowTimer());
        byte[] plain = "SIP/2.0 200 OK\r\nVia: SIP/2.0/TCP h:1;branch=z9hG4bKx\r\n\r\n".getBytes(StandardCharsets.UTF_8);
        assertEquals(-1, Response.parse(plain, plain.length).flowTimer());
    }

    @Test
    void anOverloadedServers503TellsWhenToComeBackInRetryAftersLeadingSeconds() {
        byte[] busy = ("SIP/2.0 503 Service Unavailable\r\nVia: SIP/2.0/UDP h:1;branch=z9hG4bKx\r\n"
                + "Retry-After: 18 (overloaded);duration=60\r\nContent-Length: 0\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8);
        assertEquals(18, Response.parse(busy, busy.length).retryAfter());
        byte[] bare = "SIP/2.0 503 Service Unavailable\r\nVia: SIP/2.0/UDP h:1;branch=z9hG4bKx\r\n\r\n"
                .getBytes(StandardCharsets.UTF_8);
        assertEquals(-1, Response.parse(bare, bare.length).retryAfter(), "no Retry-After: no time to come back");
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

    private static Phone phone(RegisterRequest.Local local, String transport) {
        Phone phone = new Phone(new User("alice", "p2psip.test", "pw"));
        phone.via = local;
        phone.contactUri = RegisterRequest.contactUri(phone.user, local, transport);
        return phone;
    }

    private static List<String> lines(byte[] message) {
        return List.of(new String(message, StandardCharsets.UTF_8).split("\r\n"));
    }
}
