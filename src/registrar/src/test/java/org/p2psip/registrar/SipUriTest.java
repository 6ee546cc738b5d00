package org.p2psip.registrar;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The comparison rules of RFC 3261 §19.1.4: its whole table of equal and unequal URIs, then cases it states in words. */
class SipUriTest {

    /** §19.1.4, "The URIs within each of the following sets are equivalent" (every pair of each set). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "sip:%61lice@atlanta.com;transport=TCP | sip:alice@AtLanTa.CoM;Transport=tcp",
        "sip:carol@chicago.com | sip:carol@chicago.com;newparam=5",
        "sip:carol@chicago.com | sip:carol@chicago.com;security=on",
        "sip:carol@chicago.com;newparam=5 | sip:carol@chicago.com;security=on",
        "sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com | sip:biloxi.com;method=REGISTER;transport=tcp?to=sip:bob%40biloxi.com",
        "sip:alice@atlanta.com?subject=project%20x&priority=urgent | sip:alice@atlanta.com?priority=urgent&subject=project%20x",
    })
    void theRfcsEquivalentUris(String a, String b) {
        assertEquivalent(a, b);
    }

    /** §19.1.4, "The URIs within each of the following sets are not equivalent", with the reason the RFC gives. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SIP:ALICE@AtLanTa.CoM;Transport=udp | sip:alice@AtLanTa.CoM;Transport=UDP", // different usernames
        "sip:bob@biloxi.com | sip:bob@biloxi.com:5060", // can resolve to different ports
        "sip:bob@biloxi.com | sip:bob@biloxi.com;transport=udp", // can resolve to different transports
        "sip:bob@biloxi.com | sip:bob@biloxi.com:6000;transport=tcp", // different port and transport
        "sip:carol@chicago.com | sip:carol@chicago.com?Subject=next%20meeting", // different header component
        "sip:bob@phone21.boxesbybob.com | sip:bob@192.0.2.4", // even if the name resolves to that address
    })
    void theRfcsUnequalUris(String a, String b) {
        assertDifferent(a, b);
    }

    /** §19.1.4: "equality is not transitive": each of these two equals sip:carol@chicago.com, but not the other. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "sip:carol@chicago.com | sip:carol@chicago.com;security=on",
        "sip:carol@chicago.com | sip:carol@chicago.com;security=off",
    })
    void theRfcsIntransitiveExampleEqualsTheBareUri(String a, String b) {
        assertEquivalent(a, b);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"sip:carol@chicago.com;security=on | sip:carol@chicago.com;security=off"})
    void theRfcsIntransitiveExampleDiffersFromItself(String a, String b) {
        assertDifferent(a, b);
    }

    /** Rules §19.1.4 states in words rather than in its table. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SIP:alice@HOST.example;transport=UDP | sip:alice@host.example;transport=udp", // scheme, host, parameters: any case
        "sip:alice@[2001:DB8::1]:5060 | sip:alice@[2001:db8::1]:5060",
        "sip:alice@atlanta.com:05060 | sip:alice@atlanta.com:5060", // the port is a number
        "sip:alice@atlanta.com;lr;ttl=5 | sip:alice@atlanta.com;ttl=5", // a parameter of neither list in one only
        "sip:a%62c@atlanta.com | sip:abc@atlanta.com", // an unreserved character equals its escape
        "sip:a%3bb@atlanta.com | sip:a%3Bb@atlanta.com", // escapes compare whatever the case of their hex digits
        "sip:a?b@atlanta.com;newparam=5 | sip:a?b@atlanta.com", // a '?' in the user part starts no headers
    })
    void equivalentByTheRulesInWords(String a, String b) {
        assertEquivalent(a, b);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "sip:alice@atlanta.com | sips:alice@atlanta.com", // a SIP and a SIPS URI are never equivalent
        "sip:alice@atlanta.com | sip:atlanta.com", // a user in one only
        "sip:alice:secret@atlanta.com | sip:alice@atlanta.com", // a password in one only
        "sip:alice@atlanta.com;maddr=239.255.255.1 | sip:alice@atlanta.com", // maddr in one only
        "sip:alice@atlanta.com;user=phone | sip:alice@atlanta.com", // user in one only
        "sip:alice@atlanta.com;ttl=1 | sip:alice@atlanta.com", // ttl in one only
        "sip:alice@atlanta.com;method=INVITE | sip:alice@atlanta.com", // method in one only
        "sip:alice@atlanta.com;transport=udp | sip:alice@atlanta.com;transport=tcp", // a parameter in both differs
        "sip:a%3Bb@atlanta.com | sip:a;b@atlanta.com", // a reserved character differs from its escape
        "sip:a%3Fb@atlanta.com | sip:a?b@atlanta.com",
        "sip:alice@atlanta.com?subject=x | sip:alice@atlanta.com?subject=y",
    })
    void differentByTheRulesInWords(String a, String b) {
        assertDifferent(a, b);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"tel:+15551234 | tel:+15551234", "not a uri | not a uri"})
    void whatIsNoSipUriIsEqualOnlyToItself(String a, String b) {
        assertTrue(SipUri.equivalent(a, b));
        assertFalse(SipUri.equivalent(a, b + "0"));
    }

    private static void assertEquivalent(String a, String b) {
        assertTrue(SipUri.equivalent(a, b), "expected " + a + " = " + b);
        assertTrue(SipUri.equivalent(b, a), "expected " + b + " = " + a);
    }

    private static void assertDifferent(String a, String b) {
        assertFalse(SipUri.equivalent(a, b), "expected " + a + " != " + b);
        assertFalse(SipUri.equivalent(b, a), "expected " + b + " != " + a);
    }
}
