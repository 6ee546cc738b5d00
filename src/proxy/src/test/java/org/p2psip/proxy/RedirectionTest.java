package org.p2psip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 3841's directive and the Route a redirected contact carries; the 302 itself is checked through the container by RedirectIT. */
class RedirectionTest {

    @Test
    void redirectIsADirectiveAmongOthersInAnyLetterCase() {
        assertTrue(Redirection.listsRedirect(List.of("redirect")));
        assertTrue(Redirection.listsRedirect(List.of("Redirect, sequential")));
        assertTrue(Redirection.listsRedirect(List.of("no-fork", " REDIRECT ")));
        assertTrue(Redirection.listsRedirect(List.of("queue", "redirect,cancel")));
    }

    @Test
    void proxyOrNoDirectiveOrALookAlikeKeepsProxying() {
        assertFalse(Redirection.listsRedirect(List.of()));
        assertFalse(Redirection.listsRedirect(List.of("proxy")));
        assertFalse(Redirection.listsRedirect(List.of("proxy, sequential, no-cancel")));
        assertFalse(Redirection.listsRedirect(List.of("redirected", "no-redirect", "")));
    }

    @Test
    void aPathBecomesOneEscapedRouteValueFirstEntryOnTop() {
        assertEquals("%3Csip:tok%4010.0.0.9:5060%3Blr%3E", Redirection.route(List.of("<sip:tok@10.0.0.9:5060;lr>")));
        assertEquals("%3Csip:a.example;lr%3E%2C%3Csip:b.example;lr%3E".replace(";", "%3B"),
                Redirection.route(List.of("<sip:a.example;lr>", "<sip:b.example;lr>")));
    }

    @Test
    void escapingKeepsWhatAHeaderValueAllowsAndEscapesTheRest() {
        assertEquals("az09-_.!~*'()[]/?:+$", Redirection.escaped("az09-_.!~*'()[]/?:+$"));
        assertEquals("%20%22%25%26%3D%3C%3E%40%2C%3B%C3%A9", Redirection.escaped(" \"%&=<>@,;é"));
    }
}
