package org.p2psip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.p2psip.registrar.RegistrarRulesTest.await;
import static org.p2psip.registrar.RegistrarServiceTest.AOR;
import static org.p2psip.registrar.RegistrarServiceTest.request;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.dht.Binding;
import org.p2psip.dht.contract.MutableClock;
import org.p2psip.dht.memory.MemoryDht;

/**
 * The REGISTER path over a DHT whose owners apply the rules themselves: one update per REGISTER,
 * first registration and refresh alike, never a read or a put, and the replies the rules give.
 */
class OwnerUpdatesTest {

    final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T12:00:00Z"));
    final MemoryDht memory = new MemoryDht(clock, Duration.ofHours(1), new RegistrarOwnerRules(Config.empty()));
    final RegistrarService service = new RegistrarService(memory, Config.empty(), clock);

    @AfterEach
    void close() {
        memory.close();
    }

    @Test
    void aFirstRegistrationAndItsRefreshAreOneUpdateEachAndLeaveOneBinding() {
        assertInstanceOf(Reply.Registered.class, await(service.register(request("sip:bob@a", "c"))));
        var refresh = new RegisterRequest(AOR, "c", 2, null, false,
                List.of(new ContactSpec("sip:bob@a", 600L, Binding.Q_UNSPECIFIED, "", 0)), List.of());
        var reply = assertInstanceOf(Reply.Registered.class, await(service.register(refresh)));
        assertEquals(1, reply.bindings().size(), "a refresh updates its binding, it does not add one");
        assertEquals(2, reply.bindings().get(0).cseq());
        assertEquals(Map.of("memory.gets", 0L, "memory.puts", 0L, "memory.updates", 2L), costs());
        assertEquals(2, await(memory.get(AOR)).version());
    }

    @Test
    void aReplayIsRefusedOnTheRecordTheOwnerAnsweredAndChangesNothing() {
        await(service.register(request("sip:bob@a", "c")));
        var replay = assertInstanceOf(Reply.Refused.class, await(service.register(request("sip:bob@a", "c"))));
        assertEquals(Rejection.OUT_OF_ORDER, replay.rejection());
        assertEquals(1, await(memory.get(AOR)).version(), "the refused replay wrote nothing");
    }

    @Test
    void anIntervalTooBriefIsRefusedWithTheMinimum() {
        var brief = new RegisterRequest(AOR, "c", 1, 1L, false,
                List.of(new ContactSpec("sip:bob@a", null, Binding.Q_UNSPECIFIED, "", 0)), List.of());
        var refused = assertInstanceOf(Reply.Refused.class, await(service.register(brief)));
        assertEquals(Rejection.INTERVAL_TOO_BRIEF, refused.rejection());
        assertEquals(60, refused.minExpires());
        assertFalse(await(memory.get(AOR)).exists());
    }

    @Test
    void aRemovalForAnAorNeverRegisteredCreatesNoRecord() {
        var wildcard = new RegisterRequest(AOR, "w", 1, 0L, true, List.of(), List.of());
        var reply = assertInstanceOf(Reply.Registered.class, await(service.register(wildcard)));
        assertEquals(List.of(), reply.bindings());
        assertFalse(await(memory.get(AOR)).exists(), "calls to it stay 404, not 480");
    }

    private Map<String, Long> costs() {
        var all = memory.metrics();
        return Map.of("memory.gets", all.get("memory.gets"), "memory.puts", all.get("memory.puts"),
                "memory.updates", all.get("memory.updates"));
    }
}
