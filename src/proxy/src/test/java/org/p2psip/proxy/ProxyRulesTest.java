package org.p2psip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.registrar.Domains;
import org.p2psip.registrar.Location;

/** The decisions of RFC 3261 §16 on scripted lookups: refusals, the groups a fork rings in turn, redirects. */
class ProxyRulesTest {

    private static final long EXPIRES = 1_000_000L;
    /** The node itself: sip:...@127.0.0.1:31600. */
    private final ProxyRules rules = new ProxyRules(new Domains(List.of("p2psip.test"), "127.0.0.1", 31600));

    private static Binding binding(String contact, int q) {
        return binding(contact, q, List.of(), "");
    }

    private static Binding binding(String contact, int q, List<String> path, String instance) {
        return new Binding("sip:bob@p2psip.test", contact, EXPIRES, q, "call-1", 1, path, instance, instance.isEmpty() ? 0 : 1);
    }

    private static Request invite(String requestUri, String... dispositions) {
        return new Request("INVITE", read(requestUri), 70, false, List.of(dispositions));
    }

    /** A contact read as the container reads it, far enough for the rules: scheme, host, port; null when it has no scheme. */
    private static UriParts read(String uri) {
        int colon = uri.indexOf(':');
        if (colon < 0) {
            return null;
        }
        String rest = uri.substring(colon + 1).replaceFirst("[;?].*", "");
        String hostPort = rest.substring(rest.indexOf('@') + 1);
        int portAt = hostPort.lastIndexOf(':');
        return portAt < 0 ? new UriParts(uri.substring(0, colon), hostPort, -1)
                : new UriParts(uri.substring(0, colon), hostPort.substring(0, portAt), Integer.parseInt(hostPort.substring(portAt + 1)));
    }

    private Decision decide(Request request, Binding... bindings) {
        return rules.decide(request, new Location.Found(List.of(bindings)), ProxyRulesTest::read);
    }

    private static List<List<String>> uris(Decision decision) {
        var groups = new ArrayList<List<String>>();
        for (List<Target> group : assertInstanceOf(Decision.Fork.class, decision).groups()) {
            groups.add(group.stream().map(Target::uri).toList());
        }
        return groups;
    }

    @Test
    void contactsRingInQOrderThoseOfOneQTogether() {
        Decision decision = decide(invite("sip:bob@p2psip.test"), binding("sip:a@10.0.0.1", 1000),
                binding("sip:b@10.0.0.2", 1000), binding("sip:c@10.0.0.3", 500), binding("sip:d@10.0.0.4", 300));
        assertEquals(List.of(List.of("sip:a@10.0.0.1", "sip:b@10.0.0.2"), List.of("sip:c@10.0.0.3"), List.of("sip:d@10.0.0.4")),
                uris(decision));
        assertTrue(((Decision.Fork) decision).supervised(), "with later groups the servlet must see the best answer");
    }

    @Test
    void oneGroupWithoutFlowsIsLeftToTheContainerAndOneOnAFlowIsSupervised() {
        Decision plain = decide(invite("sip:bob@p2psip.test"), binding("sip:a@10.0.0.1", 1000), binding("sip:b@10.0.0.2", 1000));
        assertFalse(((Decision.Fork) plain).supervised());
        List<String> path = List.of("<sip:edge@10.0.0.9:5060;lr;ob>");
        Decision flow = decide(invite("sip:bob@p2psip.test"), binding("sip:a@10.0.0.1;ob", 1000, path, "<urn:uuid:1>"));
        Target target = ((Decision.Fork) flow).groups().get(0).get(0);
        assertEquals(path, target.path(), "the branch is routed through the registration's Path");
        assertTrue(((Decision.Fork) flow).supervised(), "a flow's 430 must reach the servlet");
    }

    @Test
    void anInstancesLaterFlowsRingEachAloneAfterEveryGroup() {
        Decision decision = decide(invite("sip:bob@p2psip.test"),
                binding("sip:phone@10.0.0.1;ob", 1000, List.of("<sip:e1@10.0.0.8;lr>"), "<urn:uuid:1>"),
                binding("sip:phone@10.0.0.2;ob", 1000, List.of("<sip:e2@10.0.0.9;lr>"), "<urn:uuid:1>"),
                binding("sip:desk@10.0.0.3", 500));
        assertEquals(List.of(List.of("sip:phone@10.0.0.1;ob"), List.of("sip:desk@10.0.0.3"), List.of("sip:phone@10.0.0.2;ob")),
                uris(decision));
    }

    @Test
    void anUnknownAorIs404AndOneWithoutLiveBindings480() {
        assertEquals(new Decision.Refuse(Refusal.NOT_FOUND),
                rules.decide(invite("sip:bob@p2psip.test"), new Location.Unknown(), ProxyRulesTest::read));
        assertEquals(new Decision.Refuse(Refusal.UNAVAILABLE),
                rules.decide(invite("sip:bob@p2psip.test"), new Location.Unavailable(), ProxyRulesTest::read));
        assertEquals(404, Refusal.NOT_FOUND.status);
        assertEquals(480, Refusal.UNAVAILABLE.status);
    }

    @Test
    void maxForwardsSpentIs483BeforeAnyLookupAndOneLeftIsNot() {
        var spent = new Request("OPTIONS", read("sip:bob@p2psip.test"), 0, false, List.of());
        assertEquals(Optional.of(Refusal.TOO_MANY_HOPS), ProxyRules.refusedBeforeLookup(spent));
        assertEquals(483, Refusal.TOO_MANY_HOPS.status);
        var left = new Request("INVITE", read("sip:bob@p2psip.test"), 1, false, List.of());
        assertEquals(Optional.empty(), ProxyRules.refusedBeforeLookup(left));
    }

    @Test
    void contactsThatAreThisNodeAreLeftOutAndOnlySuchContactsAreALoop() {
        assertEquals(new Decision.Refuse(Refusal.LOOP), decide(invite("sip:bob@p2psip.test"),
                binding("sip:bob@127.0.0.1:31600", 1000)));
        assertEquals(482, Refusal.LOOP.status);
        assertEquals(List.of(List.of("sip:bob@127.0.0.1:31601")), uris(decide(invite("sip:bob@p2psip.test"),
                binding("sip:bob@127.0.0.1:31600", 1000), binding("sip:bob@127.0.0.1:31601", 500))));
    }

    @Test
    void aSipsRequestRingsOnlySipsContactsAndWithoutAnyIs480NoSecureContact() {
        assertEquals(List.of(List.of("sips:bob@10.0.0.2")), uris(decide(invite("sips:bob@p2psip.test"),
                binding("sip:bob@10.0.0.1", 1000), binding("sips:bob@10.0.0.2", 500))));
        Decision refused = decide(invite("sips:bob@p2psip.test"), binding("sip:bob@10.0.0.1", 1000));
        assertEquals(new Decision.Refuse(Refusal.NO_SECURE_CONTACT), refused);
        assertEquals("No Secure Contact", Refusal.NO_SECURE_CONTACT.reason);
    }

    @Test
    void aContactTheReaderCannotReadIsSkipped() {
        assertEquals(List.of(List.of("sip:b@10.0.0.2")), uris(decide(invite("sip:bob@p2psip.test"),
                binding("garbage", 1000), binding("sip:b@10.0.0.2", 500))));
    }

    @Test
    void aRedirectListsTheContactsInTheOrderTheyWouldRingPathIncluded() {
        List<String> path = List.of("<sip:edge@10.0.0.9:5060;lr>");
        Decision decision = decide(invite("sip:bob@p2psip.test", "Redirect, sequential"), binding("sip:c@10.0.0.3", 300, path, ""),
                binding("sip:a@10.0.0.1", 1000), binding("sip:b@10.0.0.2", 500));
        // the bindings come highest q first from the registrar: here in the order given
        var contacts = assertInstanceOf(Decision.Redirect.class, decision).contacts();
        assertEquals(List.of("sip:c@10.0.0.3", "sip:a@10.0.0.1", "sip:b@10.0.0.2"), contacts.stream().map(Target::uri).toList());
        assertEquals(List.of(300, 1000, 500), contacts.stream().map(Target::q).toList());
        assertEquals(EXPIRES, contacts.get(1).expiresAt());
        assertEquals("%3Csip:edge%4010.0.0.9:5060%3Blr%3E", Redirection.route(contacts.get(0).path()),
                "the Path goes into the contact as one escaped Route value");
    }

    @Test
    void onlyAnInviteOutOfADialogIsRedirected() {
        Binding a = binding("sip:a@10.0.0.1", 1000);
        assertInstanceOf(Decision.Redirect.class, decide(invite("sip:bob@p2psip.test", "redirect"), a));
        assertInstanceOf(Decision.Fork.class, decide(invite("sip:bob@p2psip.test", "proxy"), a));
        assertInstanceOf(Decision.Fork.class, decide(new Request("INVITE", read("sip:bob@p2psip.test"), 70, true,
                List.of("redirect")), a), "a re-INVITE follows its dialog");
        assertInstanceOf(Decision.Fork.class, decide(new Request("MESSAGE", read("sip:bob@p2psip.test"), 70, false,
                List.of("redirect")), a), "the front keeps state for calls only");
    }

    @Test
    void refusalsComeBeforeARedirect() {
        assertEquals(new Decision.Refuse(Refusal.LOOP), decide(invite("sip:bob@p2psip.test", "redirect"),
                binding("sip:bob@127.0.0.1:31600", 1000)));
    }
}
