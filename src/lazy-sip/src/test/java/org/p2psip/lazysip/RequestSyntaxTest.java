package org.p2psip.lazysip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

class RequestSyntaxTest {

    private static final String REGISTER = "REGISTER sip:p2psip.test SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1;rport\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@p2psip.test>;tag=a1\r\n"
            + "To: <sip:alice@p2psip.test>\r\n"
            + "Call-ID: reg-1@192.0.2.1\r\n"
            + "CSeq: 1 REGISTER\r\n"
            + "Contact: <sip:alice@192.0.2.1:5060>\r\n"
            + "Content-Length: 0\r\n\r\n";

    private static final Set<String> REASONS = Arrays.stream(Defect.values()).map(d -> d.reason).collect(Collectors.toSet());

    /**
     * The corpus the integration test sends to a deployed node and front: a request its file
     * expects refused (400 with one of the reasons here, 416, 505, or 400 without a reason) is
     * refused so; one expected to reach the node (200, 404, 483, a servlet's own 400...) passes;
     * one expected to get no answer has no Via.
     */
    @TestFactory
    Stream<DynamicTest> everyRequestOfTheCorpusIsJudgedAsItsFileExpects() {
        return Corpus.all().stream().filter(c -> !c.isResponse()).map(c -> DynamicTest.dynamicTest(c.name(), () -> {
            Defect defect = RequestSyntax.check(c.bytes(), 0, c.bytes().length);
            boolean judged = c.expected().stream().anyMatch(e -> e.status() == 0
                    ? defect == Defect.MISSING_VIA
                    : refusal(e) ? defect != null && defect.status == e.status()
                            && (e.reason() == null || e.reason().equals(defect.reason))
                    : defect == null);
            assertTrue(judged, c.name() + ": expected " + c.expected() + ", the check found " + defect);
        }));
    }

    /** Whether an expected answer is one of the check's own: 505, 416, or 400 without a reason or with one of its. */
    private static boolean refusal(Corpus.Expected e) {
        return e.status() == 505 || e.status() == 416 || (e.status() == 400 && (e.reason() == null || REASONS.contains(e.reason())));
    }

    @Test
    void aVersionOtherThan2Point0Is505AndOneThatIsNoSipVersionAMalformedRequestLine() {
        assertEquals(Defect.VERSION_NOT_SUPPORTED, check(REGISTER.replace(" SIP/2.0\r\nVia", " SIP/7.0\r\nVia")));
        assertEquals(Defect.VERSION_NOT_SUPPORTED, check(REGISTER.replace(" SIP/2.0\r\nVia", " SIP/2.01\r\nVia")));
        assertNull(check(REGISTER.replace(" SIP/2.0\r\nVia", " sip/2.0\r\nVia")), "the version is case-insensitive");
        for (String line : new String[] {" HTTP/1.1", " SIP/2", " SIP/2.0 ", "  SIP/2.0", ""}) {
            assertEquals(Defect.MALFORMED_REQUEST_LINE, check(REGISTER.replace(" SIP/2.0\r\nVia", line + "\r\nVia")), line);
        }
        assertEquals(Defect.MALFORMED_REQUEST_LINE, check(REGISTER.replace("REGISTER sip:", "REGISTER  sip:")));
        assertEquals(Defect.MALFORMED_REQUEST_LINE, check(REGISTER.replace("REGISTER sip:", "REG(ISTER sip:")));
    }

    @Test
    void aRequestUriNeitherSipNorSipsIs416AndAMalformedSipOneIs400() {
        for (String uri : new String[] {"tel:+15555550100", "urn:service:sos", "soap.beep://192.0.2.1:3002", "mailto:a@b"}) {
            assertEquals(Defect.UNSUPPORTED_URI_SCHEME, check(REGISTER.replace("sip:p2psip.test SIP", uri + " SIP")), uri);
        }
        for (String uri : new String[] {"sips:p2psip.test", "SIP:p2psip.test", "sip:p2psip.test:5060;transport=udp;lr",
                "sip:a;b=c@[2001:db8::1]:5070", "sip:%61lice:pw@p2psip.test"}) {
            assertNull(check(REGISTER.replace("sip:p2psip.test SIP", uri + " SIP")), uri);
        }
        for (String uri : new String[] {"<sip:p2psip.test>", "sip:p2psip.test:50x0", "sip:p2psip.test?Route=%3Csip:x%3E",
                "sip:@p2psip.test", "sip:", "1sip:p2psip.test", "sip:p2psip.test;=x", "sip:p2psip.test:123456"}) {
            assertEquals(Defect.MALFORMED_REQUEST_URI, check(REGISTER.replace("sip:p2psip.test SIP", uri + " SIP")), uri);
        }
    }

    @Test
    void aRequiredHeaderMissingOrRepeatedIs400AndNoViaComesBeforeAnything() {
        Map<String, Defect> missing = Map.of("From: <sip:alice@p2psip.test>;tag=a1\r\n", Defect.MISSING_FROM,
                "To: <sip:alice@p2psip.test>\r\n", Defect.MISSING_TO, "Call-ID: reg-1@192.0.2.1\r\n", Defect.MISSING_CALL_ID,
                "CSeq: 1 REGISTER\r\n", Defect.MISSING_CSEQ);
        missing.forEach((line, defect) -> assertEquals(defect, check(REGISTER.replace(line, "")), line));
        missing.forEach((line, defect) -> assertEquals(Defect.valueOf(defect.name().replace("MISSING", "MULTIPLE")),
                check(REGISTER.replace(line, line + line)), line));
        assertEquals(Defect.MULTIPLE_CONTENT_LENGTH, check(REGISTER.replace("Content-Length: 0\r\n", "Content-Length: 0\r\nl: 0\r\n")));
        assertEquals(Defect.MULTIPLE_MAX_FORWARDS, check(REGISTER.replace("Max-Forwards: 70\r\n", "Max-Forwards: 70\r\nMax-Forwards: 70\r\n")));
        assertNull(check(REGISTER.replace("Max-Forwards: 70\r\n", "")), "a proxy adds a Max-Forwards missing (RFC 2543's requests have none)");
        assertEquals(Defect.MISSING_VIA, check(REGISTER.replace("REGISTER sip:p2psip.test SIP/2.0", "garbage")
                .replaceFirst("Via: [^\r]*\r\n", "")), "nowhere to answer: dropped whatever else is wrong");
        assertEquals(Defect.MALFORMED_HEADER_LINE, check(REGISTER.replace("Max-Forwards: 70", "Max Forwards: 70")));
        assertEquals(Defect.MALFORMED_HEADER_LINE, check(REGISTER.replace("Max-Forwards: 70", "no colon here")));
    }

    @Test
    void cseqMaxForwardsContentLengthAndCallIdMustReadAndBeInRange() {
        for (String cseq : new String[] {"-1 REGISTER", "2147483648 REGISTER", "REGISTER", "1", "1REGISTER", "1 REGISTER x"}) {
            assertEquals(Defect.INVALID_CSEQ, check(REGISTER.replace("1 REGISTER", cseq)), cseq);
        }
        assertNull(check(REGISTER.replace("CSeq: 1 REGISTER", "CSeq: 2147483647\r\n  REGISTER")));
        assertEquals(Defect.CSEQ_METHOD_MISMATCH, check(REGISTER.replace("1 REGISTER", "1 register")), "methods are case-sensitive");
        for (String mf : new String[] {"256", "-1", "seventy", "70, 69", ""}) {
            assertEquals(Defect.INVALID_MAX_FORWARDS, check(REGISTER.replace("Max-Forwards: 70", "Max-Forwards: " + mf)), mf);
        }
        assertNull(check(REGISTER.replace("Max-Forwards: 70", "Max-Forwards: 0255")));
        for (String cl : new String[] {"-1", "zero", "0 0"}) {
            assertEquals(Defect.INVALID_CONTENT_LENGTH, check(REGISTER.replace("Content-Length: 0", "Content-Length: " + cl)), cl);
        }
        assertEquals(Defect.BODY_SHORTER_THAN_CONTENT_LENGTH, check(REGISTER.replace("Content-Length: 0", "Content-Length: 99999999999999999999")));
        assertNull(check(REGISTER.replace("Content-Length: 0", "Content-Length: 3") + "abcdef"), "bytes past the body are ignored");
        assertNull(check(REGISTER.replace("Content-Length: 0\r\n", "") + "a body"), "over UDP the body is the rest");
        for (String id : new String[] {"a b@c", "a@b, c@d", ""}) {
            assertEquals(Defect.INVALID_CALL_ID, check(REGISTER.replace("reg-1@192.0.2.1", id)), id);
        }
    }

    @Test
    void viaFromToAndContactMustReadAsRfc3261WritesThem() {
        Map<String, Defect> bad = Map.ofEntries(
                Map.entry("Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1;rport", Defect.MALFORMED_VIA),
                Map.entry("From: <sip:alice@p2psip.test>;tag=a1", Defect.MALFORMED_FROM),
                Map.entry("To: <sip:alice@p2psip.test>", Defect.MALFORMED_TO),
                Map.entry("Contact: <sip:alice@192.0.2.1:5060>", Defect.MALFORMED_CONTACT));
        String[][] breakages = {
            {"192.0.2.1:5060;", "192.0.2.1:port;"}, {";rport", ";rport;;"}, {";rport", ";rport,"}, {"SIP/2.0/UDP 192", "SIP/2.0/UDP192"},
            {"<sip:alice@p2psip.test>", "\"Alice <sip:alice@p2psip.test>"}, {"<sip:alice@p2psip.test>", "< sip:alice@p2psip.test >"},
            {"<sip:alice@p2psip.test>", "Smith, Alice <sip:alice@p2psip.test>"}, {"<sip:alice@p2psip.test>", "sip:alice@p2psip.test?x=y"},
            {"<sip:alice@192.0.2.1:5060>", "<sip:alice@192.0.2.1:5060"}, {"<sip:alice@192.0.2.1:5060>", "<sip:alice@192.0.2.1:5060>;;"},
        };
        for (var header : bad.entrySet()) {
            for (String[] breakage : breakages) {
                if (header.getKey().contains(breakage[0])) {
                    String broken = header.getKey().replace(breakage[0], breakage[1]);
                    assertEquals(header.getValue(), check(REGISTER.replace(header.getKey(), broken)), broken);
                }
            }
        }
        assertEquals(Defect.MALFORMED_TO, check(REGISTER.replace("To: <sip:alice@p2psip.test>",
                "To: <sip:alice@p2psip.test>, <sip:bob@p2psip.test>")), "one value where one is allowed");
    }

    @Test
    void oddButValidSyntaxPasses() {
        String[] odd = {
            REGISTER.replace("Via: SIP/2.0/UDP 192.0.2.1:5060;", "vIa\t:  SIP  /  2.0\r\n  / UDP\r\n\t192.0.2.1 : 5060 ;"),
            REGISTER.replace("From: <sip:alice@p2psip.test>", "f: \"A \\\"q\\\" \\\u0000 b\"<sip:alice@p2psip.test>"),
            REGISTER.replace("From: <sip:alice@p2psip.test>;tag=a1", "From: sip:alice@p2psip.test ; tag = a1"),
            REGISTER.replace("To: <sip:alice@p2psip.test>", "t: Alice   B.~Smith' <sips:%61lice@p2psip.test;lr>"),
            REGISTER.replace("Contact: <sip:alice@192.0.2.1:5060>", "m: *"),
            REGISTER.replace("Contact: <sip:alice@192.0.2.1:5060>", "Contact: <sip:a@192.0.2.1?Route=%3Csip:x%3E>;"
                    + "+sip.instance=\"<urn:uuid:1>\";expires=60, sip:b@[2001:db8::1]:5070;q=0.5, <tel:+1555>"),
            REGISTER.replace("Contact: <sip:alice@192.0.2.1:5060>", "Contact: <name:Jane_Doe>"),
            REGISTER.replace("Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1;rport",
                    "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1;rport;received=[2001:db8::9], SIP/2.0/SCTP h.example;ttl=1"),
            REGISTER.replace("REGISTER sip:p2psip.test", "!odd.Method-_~'`%*+ sip:u@p2psip.test")
                    .replace("CSeq: 1 REGISTER", "CSeq: 007 !odd.Method-_~'`%*+"),
            REGISTER.replace("Call-ID: reg-1@192.0.2.1", "i: odd`~()<>:\\\"/[]?{}@w"),
        };
        for (String request : odd) {
            assertNull(check(request), request);
        }
    }

    @Test
    void whatItCannotReadWithCertaintyIsLeftToTheStack() {
        assertNull(check(REGISTER.replace("\r\n", "\n").replace(" SIP/2.0", " SIP/7.0")), "bare LFs");
        assertNull(check(REGISTER.replace("Max-Forwards: 70\r\n", "Max-Forwards: 70\r")), "a bare CR");
        assertNull(check(REGISTER.substring(0, REGISTER.length() - 2).replace(" SIP/2.0", " SIP/7.0")), "no empty line");
    }

    @Test
    void onAStreamContentLengthFramesTheBodySoOnlyTheHeadIsJudged() {
        byte[] head = REGISTER.replace("Content-Length: 0", "Content-Length: 100").getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(Defect.BODY_SHORTER_THAN_CONTENT_LENGTH, RequestSyntax.check(head, 0, head.length));
        assertNull(RequestSyntax.checkStreamed(head, 0, head.length));
        byte[] framed = ("xx" + REGISTER).getBytes(StandardCharsets.ISO_8859_1);
        assertNull(RequestSyntax.check(framed, 2, framed.length - 2), "from an offset");
        assertFalse(RequestSyntax.check(framed, 0, framed.length) == null);
    }

    private static Defect check(String request) {
        byte[] bytes = request.getBytes(StandardCharsets.ISO_8859_1);
        return RequestSyntax.check(bytes, 0, bytes.length);
    }
}
