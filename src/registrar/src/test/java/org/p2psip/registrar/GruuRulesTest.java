package org.p2psip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.p2psip.registrar.RegistrarRulesTest.await;
import static org.p2psip.registrar.RegistrarRulesTest.registered;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.dht.Binding;
import org.p2psip.dht.contract.MutableClock;
import org.p2psip.dht.memory.MemoryDht;

/** RFC 5627 in the registrar: which GRUUs a 200 gives, and where a request for one goes. One test per rule. */
class GruuRulesTest {

    static final String AOR = "sip:alice@example.com";
    static final String DESK = "\"<urn:uuid:00000000-0000-0000-0000-00000000d35c>\"";
    static final String PHONE = "\"<urn:uuid:00000000-0000-0000-0000-0000000f0e5e>\"";
    final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T12:00:00Z"));
    final Config config = Config.of(Map.of("p2psip.overlay.secret", "s3cret", "p2psip.registrar.retention", "1h"));
    final MemoryDht dht = new MemoryDht(clock, Duration.ofHours(1), new RegistrarOwnerRules(config));
    final RegistrarService node0 = new RegistrarService(dht, config, clock);
    final RegistrarService node1 = new RegistrarService(dht, config, clock);

    @AfterEach
    void close() {
        dht.close();
    }

    @Test
    void aRegisterSupportingGruuGetsAPublicAndATemporaryGruuForItsInstance() {
        var reply = register(node0, "call-desk", 1, Set.of("gruu"), contact("sip:alice@10.0.0.1", DESK));
        Gruus.Issued issued = reply.gruus().get(reply.bindings().get(0));
        assertEquals(AOR + ";gr=urn:uuid:00000000-0000-0000-0000-00000000d35c", issued.publicGruu());
        assertTrue(issued.temporaryGruu().startsWith("sip:tgruu."), issued.temporaryGruu());
    }

    @Test
    void aRegisterWithoutSupportedGruuGetsNoGruu() {
        var reply = register(node0, "call-desk", 1, Set.of("path"), contact("sip:alice@10.0.0.1", DESK));
        assertEquals(Map.of(), reply.gruus());
    }

    @Test
    void aContactWithoutInstanceGetsNoGruuButOthersInTheReplyDo() {
        register(node0, "call-desk", 1, Set.of(), contact("sip:alice@10.0.0.1", DESK));
        var reply = register(node0, "call-plain", 1, Set.of("gruu"), contact("sip:alice@10.0.0.9", ""));
        assertEquals(Set.of("sip:alice@10.0.0.1"), Set.copyOf(reply.gruus().keySet().stream().map(Binding::contact).toList()),
                "every binding with an instance gets its GRUUs, the one without none");
    }

    @Test
    void thePublicGruuIsTheSameAtEveryRegistrationAndTheTemporaryOneNew() {
        var first = issued(register(node0, "call-1", 1, Set.of("gruu"), contact("sip:alice@10.0.0.1", DESK)));
        var second = issued(register(node1, "call-2", 1, Set.of("gruu"), contact("sip:alice@10.0.0.1", DESK)));
        assertEquals(first.publicGruu(), second.publicGruu());
        assertNotEquals(first.temporaryGruu(), second.temporaryGruu());
    }

    @Test
    void aPublicGruuReachesOnlyItsInstancesBindings() {
        register(node0, "call-desk", 1, Set.of("gruu"), contact("sip:alice@10.0.0.1", DESK));
        var reply = register(node0, "call-phone", 1, Set.of("gruu"), contact("sip:alice@10.0.0.2", PHONE), contact("sip:alice@10.0.0.3", ""));
        Gruu gruu = resolve(node1, issuedFor(reply, PHONE).publicGruu());
        assertEquals(Gruu.Kind.PUBLIC, gruu.kind());
        assertEquals(List.of("sip:alice@10.0.0.2"), found(node1.locate(gruu)));
    }

    @Test
    void aTemporaryGruuIssuedByOneNodeReachesItsInstanceThroughAnother() {
        var reply = register(node0, "call-desk", 1, Set.of("gruu"), contact("sip:alice@10.0.0.1", DESK), contact("sip:alice@10.0.0.3", ""));
        Gruu gruu = resolve(node1, issued(reply).temporaryGruu());
        assertEquals(new Gruu(Gruu.Kind.TEMPORARY, AOR, Gruu.urnOf(DESK), Gruu.digestOf("call-desk")), gruu);
        assertEquals(List.of("sip:alice@10.0.0.1"), found(node1.locate(gruu)));
    }

    @Test
    void aTemporaryGruuStaysValidWhileItsInstanceRefreshesUnderTheSameCallId() {
        String temporary = issued(register(node0, "call-desk", 1, Set.of("gruu"), contact("sip:alice@10.0.0.1", DESK))).temporaryGruu();
        register(node1, "call-desk", 2, Set.of("gruu"), contact("sip:alice@10.0.0.4", DESK));
        assertEquals(List.of("sip:alice@10.0.0.4"), found(node1.locate(resolve(node1, temporary))),
                "the refresh moved the instance; its temporary GRUU follows");
    }

    @Test
    void aTemporaryGruuIsInvalidOnceItsInstanceRegistersWithANewCallId() {
        var before = issued(register(node0, "call-1", 1, Set.of("gruu"), contact("sip:alice@10.0.0.1", DESK)));
        var after = issued(register(node1, "call-2", 1, Set.of("gruu"), contact("sip:alice@10.0.0.1", DESK)));
        assertInstanceOf(Location.Unknown.class, await(node1.locate(resolve(node1, before.temporaryGruu()))),
                "a temporary GRUU of the registration the new Call-ID replaced: 404");
        assertEquals(List.of("sip:alice@10.0.0.1"), found(node0.locate(resolve(node0, after.temporaryGruu()))));
        assertEquals(List.of("sip:alice@10.0.0.1"), found(node0.locate(resolve(node0, before.publicGruu()))),
                "the public GRUU lives on");
    }

    @Test
    void aGruuOfAnInstanceWithNoLiveBindingIsUnavailable() {
        var issued = issued(register(node0, "call-desk", 1, Set.of("gruu"), contact("sip:alice@10.0.0.1", DESK)));
        register(node0, "call-phone", 1, Set.of(), contact("sip:alice@10.0.0.2", PHONE));
        register(node0, "call-desk", 2, Set.of(), new ContactSpec("sip:alice@10.0.0.1", 0L, Binding.Q_UNSPECIFIED, DESK, 0));
        assertInstanceOf(Location.Unavailable.class, await(node1.locate(resolve(node1, issued.publicGruu()))));
        assertInstanceOf(Location.Unavailable.class, await(node1.locate(resolve(node1, issued.temporaryGruu()))));
    }

    @Test
    void aGruuOfAnAorNotKnownIsUnknown() {
        var issued = issued(register(node0, "call-desk", 1, Set.of("gruu"), contact("sip:alice@10.0.0.1", DESK)));
        clock.advance(Duration.ofHours(3)); // the binding expired and the record's retention ended
        assertInstanceOf(Location.Unknown.class, await(node1.locate(resolve(node1, issued.publicGruu()))));
        assertInstanceOf(Location.Unknown.class, await(node1.locate(resolve(node1, issued.temporaryGruu()))));
    }

    Reply.Registered register(RegistrarService node, String callId, long cseq, Set<String> supported, ContactSpec... contacts) {
        return registered(await(node.register(new RegisterRequest(AOR, callId, cseq, null, false, List.of(contacts), List.of(), supported))));
    }

    static ContactSpec contact(String uri, String instance) {
        return new ContactSpec(uri, 600L, Binding.Q_UNSPECIFIED, instance, 0);
    }

    /** The GRUUs of the one binding with an instance in {@code reply}. */
    static Gruus.Issued issued(Reply.Registered reply) {
        assertEquals(1, reply.gruus().size(), "GRUUs in " + reply);
        return reply.gruus().values().iterator().next();
    }

    static Gruus.Issued issuedFor(Reply.Registered reply, String instance) {
        return reply.gruus().entrySet().stream().filter(e -> e.getKey().instance().equals(instance))
                .map(Map.Entry::getValue).findFirst().orElseThrow(() -> new AssertionError("no GRUUs for " + instance + " in " + reply));
    }

    /** What the proxy does with a Request-URI: its AOR (sip:user@host) and its gr parameter. */
    static Gruu resolve(RegistrarService node, String gruuUri) {
        int gr = gruuUri.indexOf(";gr");
        String value = gruuUri.startsWith(";gr=", gr) ? gruuUri.substring(gr + 4) : "";
        return node.gruus().resolve(gruuUri.substring(0, gr), value).orElseThrow(() -> new AssertionError("no GRUU: " + gruuUri));
    }

    static List<String> found(java.util.concurrent.CompletionStage<Location> location) {
        return assertInstanceOf(Location.Found.class, await(location)).byPreference().stream().map(Binding::contact).toList();
    }
}
