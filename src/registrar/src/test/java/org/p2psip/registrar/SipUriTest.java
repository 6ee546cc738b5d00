package org.p2psip.registrar;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The comparison rules of RFC 3261 §19.1.4, with its own examples of equal and unequal URIs. */
class SipUriTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "sip:%61lice@atlanta.com;transport=TCP | sip:alice@AtLanTa.CoM;Transport=tcp",
        "sip:carol@chicago.com | sip:carol@chicago.com;newparam=5",
        "sip:carol@chicago.com;newparam=5 | sip:carol@chicago.com;security=on",
        "sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com | sip:biloxi.com;method=REGISTER;transport=tcp?to=sip:bob%40biloxi.com",
        "sip:alice@atlanta.com?subject=project%20x&priority=urgent | sip:alice@atlanta.com?priority=urgent&subject=project%20x",
        "SIP:alice@HOST.example;transport=UDP | sip:alice@host.example;transport=udp",
        "sip:alice@[2001:DB8::1]:5060 | sip:alice@[2001:db8::1]:5060",
    })
    void equivalent(String a, String b) {
        assertTrue(SipUri.equivalent(a, b), a + " = " + b);
        assertTrue(SipUri.equivalent(b, a), b + " = " + a);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SIP:ALICE@AtLanTa.CoM;Transport=udp | sip:alice@AtLanTa.CoM;Transport=UDP",
        "sip:bob@biloxi.com | sip:bob@biloxi.com:5060",
        "sip:bob@biloxi.com | sip:bob@biloxi.com;transport=udp",
        "sip:bob@biloxi.com | sip:bob@biloxi.com:6000;transport=tcp",
        "sip:carol@chicago.com | sip:carol@chicago.com?Subject=next%20meeting",
        "sip:bob@phone21.boxesbybob.com | sip:bob@192.0.2.4",
        "sip:carol@chicago.com;security=on | sip:carol@chicago.com;security=off",
        "sip:alice@atlanta.com | sips:alice@atlanta.com",
        "sip:alice@atlanta.com | sip:atlanta.com",
        "sip:alice@atlanta.com;maddr=239.255.255.1 | sip:alice@atlanta.com",
        "sip:alice@atlanta.com;user=phone | sip:alice@atlanta.com",
    })
    void different(String a, String b) {
        assertFalse(SipUri.equivalent(a, b), a + " != " + b);
        assertFalse(SipUri.equivalent(b, a), b + " != " + a);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"tel:+15551234 | tel:+15551234", "not a uri | not a uri"})
    void whatIsNoSipUriIsEqualOnlyToItself(String a, String b) {
        assertTrue(SipUri.equivalent(a, b));
        assertFalse(SipUri.equivalent(a, b + "0"));
    }
}
