package org.p2psip.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The request-digest against the worked examples of the RFCs. */
class DigestTest {

    @Test
    void rfc7616Section391WithMd5() {
        var a = Algorithm.MD5;
        String ha1 = a.ha1("Mufasa", "http-auth@example.org", "Circle of Life");
        assertEquals("8ca523f5e9506fed4657c9700eebdbec", Digest.response(a, ha1,
                "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", "00000001",
                "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", "auth", "GET", "/dir/index.html"));
    }

    @Test
    void rfc7616Section391WithSha256() {
        var a = Algorithm.SHA_256;
        String ha1 = a.ha1("Mufasa", "http-auth@example.org", "Circle of Life");
        assertEquals("753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", Digest.response(a, ha1,
                "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", "00000001",
                "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", "auth", "GET", "/dir/index.html"));
    }

    @Test
    void rfc2617Section35() {
        var a = Algorithm.MD5;
        String ha1 = a.ha1("Mufasa", "testrealm@host.com", "Circle Of Life");
        assertEquals("6629fae49393a05397450978507c4ef1", Digest.response(a, ha1,
                "dcd98b7102dd2f0e8b11d0f600bfb0c093", "00000001", "0a4f113b", "auth", "GET", "/dir/index.html"));
    }

    @Test
    void withoutQopTheResponseCoversOnlyTheNonce() {
        var a = Algorithm.MD5;
        String ha1 = a.ha1("bob", "p2psip.test", "secret");
        String ha2 = a.hex("REGISTER:sip:p2psip.test");
        assertEquals(a.hex(ha1 + ":n1:" + ha2), Digest.response(a, ha1, "n1", "", "", "", "REGISTER", "sip:p2psip.test"));
    }

    @Test
    void anAbsentAlgorithmIsMd5AndAnUnknownOneIsNone() {
        assertEquals(Algorithm.MD5, Algorithm.named("").orElseThrow());
        assertEquals(Algorithm.SHA_256, Algorithm.named("sha-256").orElseThrow());
        assertEquals(true, Algorithm.named("SHA-512-256").isEmpty());
    }
}
