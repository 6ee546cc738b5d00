package org.p2psip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.memory.MemoryDht;
import org.p2psip.dht.contract.MutableClock;

/** RFC 3261 §10.3 and §16.5 as the registrar applies them: one test per rule. */
class RegistrarRulesTest {

    static final String AOR = "sip:alice@example.com";
    final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T12:00:00Z"));
    final Config config = Config.of(Map.of("p2psip.registrar.min-expires", "60", "p2psip.registrar.max-expires", "7200",
            "p2psip.registrar.default-expires", "3600", "p2psip.registrar.max-contacts", "3",
            "p2psip.registrar.retention", "1h"));
    final MemoryDht dht = new MemoryDht(clock, Duration.ofHours(1), new RegistrarOwnerRules(config));
    final RegistrarService service = new RegistrarService(dht, config, clock);
    long cseq = 1;

    @AfterEach
    void close() {
        dht.close();
    }

    @Test
    void aRegisterStoresItsContactAndTheReplyListsIt() {
        var reply = registered(register(null, contact("sip:alice@10.0.0.1", 600L)));
        assertEquals(List.of("sip:alice@10.0.0.1"), contacts(reply));
        assertEquals(List.of("sip:alice@10.0.0.1"), stored());
    }

    @Test
    void anAorKeepsSeveralContactsAndTheReplyListsThemAll() {
        register(null, contact("sip:alice@desk", 600L));
        var reply = registered(register(null, contact("sip:alice@mobile", 600L)));
        assertEquals(List.of("sip:alice@desk", "sip:alice@mobile"), contacts(reply).stream().sorted().toList());
    }

    @Test
    void theReplyStatesEachBindingsRemainingTime() {
        register(null, contact("sip:alice@desk", 600L));
        clock.advance(Duration.ofSeconds(100));
        var reply = registered(register(null, contact("sip:alice@mobile", 900L)));
        var left = reply.bindings().stream().map(b -> b.contact() + "=" + b.secondsLeft(reply.now())).sorted().toList();
        assertEquals(List.of("sip:alice@desk=500", "sip:alice@mobile=900"), left);
    }

    @Test
    void aContactsExpiresParameterWinsOverTheExpiresHeader() {
        var reply = registered(register(300L, contact("sip:alice@desk", 1200L)));
        assertEquals(1200, reply.bindings().get(0).secondsLeft(reply.now()));
    }

    @Test
    void theExpiresHeaderAppliesToContactsWithoutTheParameter() {
        var reply = registered(register(300L, contact("sip:alice@desk", null)));
        assertEquals(300, reply.bindings().get(0).secondsLeft(reply.now()));
    }

    @Test
    void withNeitherTheDefaultExpiresApplies() {
        var reply = registered(register(null, contact("sip:alice@desk", null)));
        assertEquals(3600, reply.bindings().get(0).secondsLeft(reply.now()));
    }

    @Test
    void anIntervalAboveTheMaximumIsShortenedToIt() {
        var reply = registered(register(null, contact("sip:alice@desk", 999_999L)));
        assertEquals(7200, reply.bindings().get(0).secondsLeft(reply.now()));
    }

    @Test
    void expiresZeroRemovesThatBindingOnly() {
        register(null, contact("sip:alice@desk", 600L), contact("sip:alice@mobile", 600L));
        var reply = registered(register(null, contact("sip:alice@desk", 0L)));
        assertEquals(List.of("sip:alice@mobile"), contacts(reply));
        assertEquals(List.of("sip:alice@mobile"), stored());
    }

    @Test
    void aWildcardWithExpiresZeroRemovesEveryBinding() {
        register(null, contact("sip:alice@desk", 600L), contact("sip:alice@mobile", 600L));
        var reply = registered(await(service.register(new RegisterRequest(AOR, "other-call", 1, 0L, true, List.of(), List.of()))));
        assertEquals(List.of(), reply.bindings());
        assertEquals(List.of(), stored());
    }

    @Test
    void aWildcardWithoutExpiresZeroIs400AndChangesNothing() {
        register(null, contact("sip:alice@desk", 600L));
        assertRefused(Rejection.WILDCARD_WITHOUT_EXPIRES_ZERO, new RegisterRequest(AOR, "c", 9, 60L, true, List.of(), List.of()));
        assertRefused(Rejection.WILDCARD_WITHOUT_EXPIRES_ZERO, new RegisterRequest(AOR, "c", 9, null, true, List.of(), List.of()));
        assertEquals(400, Rejection.WILDCARD_WITHOUT_EXPIRES_ZERO.status());
        assertEquals(List.of("sip:alice@desk"), stored());
    }

    @Test
    void aWildcardWithOtherContactsIs400AndChangesNothing() {
        register(null, contact("sip:alice@desk", 600L));
        assertRefused(Rejection.WILDCARD_NOT_ALONE,
                new RegisterRequest(AOR, "c", 9, 0L, true, List.of(contact("sip:alice@x", null)), List.of()));
        assertEquals(400, Rejection.WILDCARD_NOT_ALONE.status());
        assertEquals(List.of("sip:alice@desk"), stored());
    }

    @Test
    void anIntervalBelowTheMinimumIs423WithMinExpiresAndChangesNothing() {
        register(null, contact("sip:alice@desk", 600L));
        var reply = await(service.register(request(null, contact("sip:alice@mobile", 30L))));
        var refused = assertInstanceOf(Reply.Refused.class, reply);
        assertEquals(Rejection.INTERVAL_TOO_BRIEF, refused.rejection());
        assertEquals(423, refused.rejection().status());
        assertEquals(60, refused.minExpires());
        assertEquals(List.of("sip:alice@desk"), stored());
    }

    @Test
    void anOlderOrEqualCSeqFromTheSameCallIdIsRefusedAndChangesNothing() {
        await(service.register(new RegisterRequest(AOR, "call-1", 5, null, false, List.of(contact("sip:alice@desk", 600L)), List.of())));
        assertRefused(Rejection.OUT_OF_ORDER,
                new RegisterRequest(AOR, "call-1", 4, null, false, List.of(contact("sip:alice@desk", 0L)), List.of()));
        assertRefused(Rejection.OUT_OF_ORDER,
                new RegisterRequest(AOR, "call-1", 5, null, false, List.of(contact("sip:alice@desk", 0L)), List.of()));
        assertEquals(List.of("sip:alice@desk"), stored());
    }

    @Test
    void aHigherCSeqOrAnotherCallIdUpdatesTheBinding() {
        await(service.register(new RegisterRequest(AOR, "call-1", 5, null, false, List.of(contact("sip:alice@desk", 600L)), List.of())));
        registered(await(service.register(new RegisterRequest(AOR, "call-1", 6, null, false, List.of(contact("sip:alice@desk", 900L)), List.of()))));
        registered(await(service.register(new RegisterRequest(AOR, "call-2", 1, null, false, List.of(contact("sip:alice@desk", 1200L)), List.of()))));
        var binding = await(dht.get(AOR)).bindings().get(0);
        assertEquals("call-2", binding.callId());
        assertEquals(1, binding.cseq());
        assertEquals(1200, binding.secondsLeft(clock.millis()));
    }

    @Test
    void aRefusalInTheMiddleOfSeveralContactsChangesNoneOfThem() {
        await(service.register(new RegisterRequest(AOR, "call-1", 5, null, false, List.of(contact("sip:alice@desk", 600L)), List.of())));
        assertRefused(Rejection.OUT_OF_ORDER, new RegisterRequest(AOR, "call-1", 3, null, false,
                List.of(contact("sip:alice@new", 600L), contact("sip:alice@desk", 600L)), List.of()));
        assertEquals(List.of("sip:alice@desk"), stored());
    }

    @Test
    void aRegisterWithoutContactIsAQueryThatChangesNothing() {
        register(null, contact("sip:alice@desk", 600L));
        long version = await(dht.get(AOR)).version();
        var reply = registered(register(null));
        assertEquals(List.of("sip:alice@desk"), contacts(reply));
        assertEquals(version, await(dht.get(AOR)).version(), "a query must not write");
    }

    @Test
    void aQueryForAnUnknownAorAnswersNoBindings() {
        assertEquals(List.of(), registered(register(null)).bindings());
        assertTrue(!await(dht.get(AOR)).exists(), "a query must not create a record");
    }

    @Test
    void qValuesAreKeptAndLookupsOfferTheHighestFirst() {
        register(null, contactQ("sip:alice@low", 100), contactQ("sip:alice@high", 900), contact("sip:alice@unspecified", 600L));
        var found = assertInstanceOf(Location.Found.class, await(service.locate(AOR)));
        assertEquals(List.of("sip:alice@unspecified", "sip:alice@high", "sip:alice@low"),
                found.byPreference().stream().map(Binding::contact).toList(), "no q ranks as 1.0");
        assertEquals(900, found.byPreference().get(1).q());
    }

    @Test
    void aLookupOfAnAorNeverRegisteredIsUnknown() {
        assertInstanceOf(Location.Unknown.class, await(service.locate("sip:nobody@example.com")));
    }

    @Test
    void aLookupAfterEveryBindingExpiredIsUnavailableUntilTheRetentionEnds() {
        register(null, contact("sip:alice@desk", 600L));
        clock.advance(Duration.ofSeconds(601));
        assertInstanceOf(Location.Unavailable.class, await(service.locate(AOR)));
        clock.advance(Duration.ofHours(1));
        assertInstanceOf(Location.Unknown.class, await(service.locate(AOR)));
    }

    @Test
    void anAorWhoseContactsWereRemovedIsUnavailable() {
        register(null, contact("sip:alice@desk", 600L));
        register(null, contact("sip:alice@desk", 0L));
        assertInstanceOf(Location.Unavailable.class, await(service.locate(AOR)));
    }

    @Test
    void anInstanceIdentifiesItsBindingWhateverItsContactUri() {
        register(null, new ContactSpec("sip:alice@10.0.0.1:5060", 600L, -1, "<urn:uuid:1>", 1));
        register(null, new ContactSpec("sip:alice@10.0.0.2:5060", 600L, -1, "<urn:uuid:1>", 1));
        assertEquals(List.of("sip:alice@10.0.0.2:5060"), stored());
    }

    @Test
    void moreContactsThanTheMaximumAreRefusedAndChangeNothing() {
        register(null, contact("sip:alice@1", 600L), contact("sip:alice@2", 600L));
        assertRefused(Rejection.TOO_MANY_CONTACTS, request(null, contact("sip:alice@3", 600L), contact("sip:alice@4", 600L)));
        assertEquals(List.of("sip:alice@1", "sip:alice@2"), stored());
    }

    @Test
    void thePathOfTheRegisterIsStoredWithTheBinding() {
        registered(await(service.register(new RegisterRequest(AOR, "c", 1, null, false, List.of(contact("sip:alice@nat", 600L)),
                List.of("<sip:edge.example.com;lr>"), Set.of("path")))));
        assertEquals(List.of("<sip:edge.example.com;lr>"), await(dht.get(AOR)).bindings().get(0).path());
    }

    private static ContactSpec outboundContact(String uri, int regId) {
        return new ContactSpec(uri, 600L, Binding.Q_UNSPECIFIED, "<urn:uuid:00000000-0000-0000-0000-00000000000a>", regId);
    }

    @Test
    void anOutboundRegisterThroughAnEdgeThatKeepsItsFlowUsesOutbound() {
        var request = new RegisterRequest(AOR, "c", 1, null, false, List.of(outboundContact("sip:alice@nat", 1)),
                List.of("<sip:core.example.com;lr>", "<sip:TOKEN@edge.example.com;lr;ob>"), Set.of("path", "outbound"));
        assertTrue(request.usesOutbound(), "asked, and the first hop (the last Path entry) said ob");
        registered(await(service.register(request)));
        assertEquals(1, await(dht.get(AOR)).bindings().get(0).regId());
    }

    @Test
    void anOutboundRegisterWhoseFirstHopLacksObIs439AndStoresNothing() {
        var request = new RegisterRequest(AOR, "c", 1, null, false, List.of(outboundContact("sip:alice@nat", 1)),
                List.of("<sip:edge.example.com;lr;ob>", "<sip:first.example.com;lr>"), Set.of("path", "outbound"));
        assertRefused(Rejection.FIRST_HOP_LACKS_OUTBOUND, request);
        assertEquals(439, Rejection.FIRST_HOP_LACKS_OUTBOUND.status());
        assertTrue(!await(dht.get(AOR)).exists(), "nothing stored");
    }

    @Test
    void withoutAReqIdOrWithoutSupportedOutboundNoFlowIsAskedFor() {
        List<String> edge = List.of("<sip:TOKEN@edge.example.com;lr;ob>");
        assertFalse(new RegisterRequest(AOR, "c", 1, null, false, List.of(outboundContact("sip:alice@nat", 0)),
                edge, Set.of("path", "outbound")).asksOutbound(), "no reg-id");
        assertFalse(new RegisterRequest(AOR, "c", 1, null, false, List.of(outboundContact("sip:alice@nat", 1)),
                edge, Set.of("path")).asksOutbound(), "not Supported: outbound");
        assertFalse(new RegisterRequest(AOR, "c", 1, null, false, List.of(outboundContact("sip:alice@nat", 1)),
                List.of(), Set.of("outbound")).usesOutbound(), "no edge: this registrar is the first hop and keeps no flow");
    }

    @Test
    void aFailedFlowDropsOnlyItsBinding() {
        registered(await(service.register(new RegisterRequest(AOR, "c", 1, null, false,
                List.of(outboundContact("sip:alice@nat:1;transport=tcp", 1), outboundContact("sip:alice@nat:2;transport=tcp", 2)),
                List.of("<sip:TOKEN@edge.example.com;lr;ob>"), Set.of("path", "outbound")))));
        assertTrue(await(service.dropFlow(AOR, "sip:alice@NAT:1;transport=tcp")), "equivalent URIs name the binding");
        assertEquals(List.of("sip:alice@nat:2;transport=tcp"), stored());
        assertFalse(await(service.dropFlow(AOR, "sip:alice@nat:1;transport=tcp")), "gone already: nothing written");
    }

    @Test
    void aPathFromAClientThatDoesNotSupportPathIs420AndStoresNothing() {
        var request = new RegisterRequest(AOR, "c", 1, null, false, List.of(contact("sip:alice@nat", 600L)),
                List.of("<sip:edge.example.com;lr>"), Set.of("100rel"));
        assertRefused(Rejection.PATH_NOT_SUPPORTED, request);
        assertEquals(420, Rejection.PATH_NOT_SUPPORTED.status());
        assertEquals("Bad Extension", Rejection.PATH_NOT_SUPPORTED.reason());
        assertTrue(!await(dht.get(AOR)).exists(), "nothing stored");
    }

    @Test
    void theSupportedPathOptionTagIsReadInAnyCase() {
        registered(await(service.register(new RegisterRequest(AOR, "c", 1, null, false, List.of(contact("sip:alice@nat", 600L)),
                List.of("<sip:edge.example.com;lr>"), Set.of(" Path ")))));
    }

    @Test
    void withoutPathRequiresSupportedAPathIsStoredFromAnyClient() {
        // the owner's rules decide, so the owner's configuration says it too (every node's does in a deployment)
        Config lenientConfig = config.with(RegistrarOptions.PATH_REQUIRES_SUPPORTED.name(), "false");
        try (var lenientDht = new MemoryDht(clock, Duration.ofHours(1), new RegistrarOwnerRules(lenientConfig))) {
            var lenient = new RegistrarService(lenientDht, lenientConfig, clock);
            registered(await(lenient.register(new RegisterRequest(AOR, "c", 1, null, false, List.of(contact("sip:alice@nat", 600L)),
                    List.of("<sip:edge.example.com;lr>")))));
            assertEquals(List.of("<sip:edge.example.com;lr>"), await(lenientDht.get(AOR)).bindings().get(0).path());
        }
    }

    @Test
    void aRegisterWithoutPathNeedsNoSupportedPath() {
        registered(register(null, contact("sip:alice@desk", 600L)));
    }

    @Test
    void aContactListedTwiceIsOneBindingWithTheLaterCopysInterval() {
        var reply = registered(register(null, contact("sip:alice@desk", 600L), contact("sip:alice@desk", 900L)));
        assertEquals(List.of("sip:alice@desk=900"),
                reply.bindings().stream().map(b -> b.contact() + "=" + b.secondsLeft(reply.now())).toList());
    }

    @Test
    void aContactListedTwiceInEquivalentFormsIsOneBindingTheLaterCopys() {
        var reply = registered(register(null, contact("sip:alice@DESK.example;transport=UDP", 600L),
                contact("sip:alice@desk.example;transport=udp", 900L)));
        assertEquals(List.of("sip:alice@desk.example;transport=udp=900"),
                reply.bindings().stream().map(b -> b.contact() + "=" + b.secondsLeft(reply.now())).toList());
    }

    @Test
    void aContactListedTwiceRefreshesItsStoredBindingOnce() {
        register(null, contact("sip:alice@desk", 600L));
        var reply = registered(register(null, contact("sip:alice@desk", 600L), contact("sip:alice@desk", 1200L)));
        assertEquals(List.of("sip:alice@desk=1200"),
                reply.bindings().stream().map(b -> b.contact() + "=" + b.secondsLeft(reply.now())).toList());
    }

    @Test
    void aContactListedTwiceWithTheLaterCopyAtExpiresZeroIsRemoved() {
        register(null, contact("sip:alice@desk", 600L), contact("sip:alice@mobile", 600L));
        var reply = registered(register(null, contact("sip:alice@desk", 600L), contact("sip:alice@desk", 0L)));
        assertEquals(List.of("sip:alice@mobile"), contacts(reply));
    }

    @Test
    void anInstanceListedTwiceIsOneBindingTheLaterCopys() {
        var reply = registered(register(null, new ContactSpec("sip:alice@10.0.0.1", 600L, -1, "<urn:uuid:1>", 1),
                new ContactSpec("sip:alice@10.0.0.2", 600L, -1, "<urn:uuid:1>", 1)));
        assertEquals(List.of("sip:alice@10.0.0.2"), contacts(reply));
    }

    @Test
    void aReplayListingAContactTwiceIsStillOutOfOrder() {
        await(service.register(new RegisterRequest(AOR, "call-1", 5, null, false, List.of(contact("sip:alice@desk", 600L)), List.of())));
        assertRefused(Rejection.OUT_OF_ORDER, new RegisterRequest(AOR, "call-1", 5, null, false,
                List.of(contact("sip:alice@desk", 900L), contact("sip:alice@desk", 900L)), List.of()));
        assertEquals(600, await(dht.get(AOR)).bindings().get(0).secondsLeft(clock.millis()));
    }

    @Test
    void aContactEquivalentByTheUriRulesRefreshesTheBindingInsteadOfAddingOne() {
        register(null, contact("sip:alice@HOST.example;transport=UDP", 600L));
        register(null, contact("sip:alice@host.example;transport=udp", 900L));
        assertEquals(1, stored().size(), "one binding: " + stored());
        register(null, contact("sip:alice@host.example:5060;transport=udp", 900L));
        assertEquals(2, stored().size(), "an explicit port is another URI (RFC 3261 §19.1.4)");
    }

    @Test
    void aWildcardRemovalForAnAorNeverRegisteredCreatesNoRecord() {
        var reply = registered(await(service.register(new RegisterRequest(AOR, "w", 1, 0L, true, List.of(), List.of()))));
        assertTrue(reply.bindings().isEmpty());
        assertTrue(!await(dht.get(AOR)).exists(), "no record written");
        assertInstanceOf(Location.Unknown.class, await(service.locate(AOR)), "calls to it get 404, not 480");
    }

    @Test
    void removingAContactThatIsNotBoundChangesNothing() {
        register(null, contact("sip:alice@desk", 600L));
        long version = await(dht.get(AOR)).version();
        var reply = registered(register(null, contact("sip:alice@mobile", 0L)));
        assertEquals(List.of("sip:alice@desk"), contacts(reply));
        assertEquals(version, await(dht.get(AOR)).version(), "a removal of nothing must not write");
    }

    @Test
    void aRemovalOnARecordWithNoBindingLeftWritesNothingAndTheAorStaysKnown() {
        register(null, contact("sip:alice@desk", 600L));
        registered(await(service.register(new RegisterRequest(AOR, "w", 1, 0L, true, List.of(), List.of()))));
        long version = await(dht.get(AOR)).version();
        registered(await(service.register(new RegisterRequest(AOR, "w", 2, 0L, true, List.of(), List.of()))));
        assertEquals(version, await(dht.get(AOR)).version(), "a record with no binding left is not written again");
        assertInstanceOf(Location.Unavailable.class, await(service.locate(AOR)), "a registered AOR stays known: 480");
    }

    @Test
    void removingContactsOfAnAorNeverRegisteredCreatesNoRecord() {
        registered(register(null, contact("sip:alice@desk", 0L), contact("sip:alice@mobile", 0L)));
        assertTrue(!await(dht.get(AOR)).exists(), "no record written");
        assertInstanceOf(Location.Unknown.class, await(service.locate(AOR)));
    }

    Reply register(Long expires, ContactSpec... contacts) {
        return await(service.register(request(expires, contacts)));
    }

    RegisterRequest request(Long expires, ContactSpec... contacts) {
        return new RegisterRequest(AOR, "call-" + cseq, cseq++, expires, false, List.of(contacts), List.of());
    }

    void assertRefused(Rejection expected, RegisterRequest request) {
        var reply = await(service.register(request));
        var refused = assertInstanceOf(Reply.Refused.class, reply, "expected " + expected + ", got " + reply);
        assertEquals(expected, refused.rejection());
    }

    static ContactSpec contact(String uri, Long expires) {
        return new ContactSpec(uri, expires, Binding.Q_UNSPECIFIED, "", 0);
    }

    static ContactSpec contactQ(String uri, int q) {
        return new ContactSpec(uri, 600L, q, "", 0);
    }

    static Reply.Registered registered(Reply reply) {
        return assertInstanceOf(Reply.Registered.class, reply, "expected 200, got " + reply);
    }

    static List<String> contacts(Reply.Registered reply) {
        return reply.bindings().stream().map(Binding::contact).toList();
    }

    List<String> stored() {
        BindingSet set = await(dht.get(AOR));
        return new ArrayList<>(set.bindings().stream().map(Binding::contact).sorted().toList());
    }

    static <T> T await(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
