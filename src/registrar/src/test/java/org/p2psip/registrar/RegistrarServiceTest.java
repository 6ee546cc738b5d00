package org.p2psip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.contract.MutableClock;
import org.p2psip.dht.memory.MemoryDht;

/**
 * How the service drives the DHT: each REGISTER is one update, whose owner applies the rules once
 * and whose outcome is the reply, never applied or sent again here; a flow's removal by
 * compare-and-set; deadlines.
 */
class RegistrarServiceTest {

    static final String AOR = "sip:bob@example.com";
    final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T12:00:00Z"));

    @Test
    void theRulesRunOncePerRegisterWhateverTheyDecide() {
        var runs = new AtomicInteger();
        var rules = new RegistrarOwnerRules(Config.empty());
        OwnerRules counting = (current, change, now) -> {
            runs.incrementAndGet();
            return rules.apply(current, change, now);
        };
        var memory = new MemoryDht(clock, Duration.ofHours(1), counting);
        var service = new RegistrarService(memory, Config.empty(), clock);
        assertInstanceOf(Reply.Registered.class, RegistrarRulesTest.await(service.register(request("sip:bob@a", "c"))));
        var replay = assertInstanceOf(Reply.Refused.class, RegistrarRulesTest.await(service.register(request("sip:bob@a", "c"))));
        assertEquals(Rejection.OUT_OF_ORDER, replay.rejection());
        var again = new RegisterRequest(AOR, "c", 2, null, false,
                List.of(new ContactSpec("sip:bob@a", 600L, Binding.Q_UNSPECIFIED, "", 0)), List.of());
        assertInstanceOf(Reply.Registered.class, RegistrarRulesTest.await(service.register(again)));
        var removalOfNone = new RegisterRequest("sip:nobody@example.com", "w", 1, 0L, true, List.of(), List.of());
        var unchanged = assertInstanceOf(Reply.Registered.class, RegistrarRulesTest.await(service.register(removalOfNone)));
        assertEquals(List.of(), unchanged.bindings());
        assertEquals(4, runs.get(), "stored, refused, stored, unchanged: the rules ran once for each REGISTER");
        assertEquals(Map.of("memory.gets", 0L, "memory.puts", 0L, "memory.updates", 4L), costs(memory),
                "one update per REGISTER, nothing read or written besides");
        assertEquals(2, RegistrarRulesTest.await(memory.get(AOR)).version(), "the refused replay wrote nothing");
        memory.close();
    }

    @Test
    void theOwnersRefusalIsTheReplyWithoutASecondWrite() {
        var memory = new MemoryDht(clock, Duration.ofHours(1), new RegistrarOwnerRules(Config.empty()));
        var updates = new AtomicInteger();
        var refusing = new DelegatingDht(memory) {
            @Override
            public CompletionStage<Updated> update(String aor, byte[] change) {
                updates.incrementAndGet();
                // an owner whose rules refuse what this node's would store (another Min-Expires, say)
                var ownRules = new RegistrarOwnerRules(Config.of(Map.of("p2psip.registrar.min-expires", "900")));
                return CompletableFuture.completedFuture(ownRules.apply(BindingSet.absent(aor), change, clock.millis()));
            }
        };
        var service = new RegistrarService(refusing, Config.empty(), clock);
        var refused = assertInstanceOf(Reply.Refused.class, RegistrarRulesTest.await(service.register(request("sip:bob@a", "c"))));
        assertEquals(Rejection.INTERVAL_TOO_BRIEF, refused.rejection());
        assertEquals(900, refused.minExpires(), "the owner's minimum, as its rules said it");
        assertEquals(1, updates.get(), "the refusal was answered, not applied here again nor sent again");
        assertEquals(Map.of("memory.gets", 0L, "memory.puts", 0L, "memory.updates", 0L), costs(memory));
        memory.close();
    }

    @Test
    void anOwnerAnswerWithoutAnOutcomeFailsTheRegister() {
        var memory = new MemoryDht(clock, Duration.ofHours(1), new RegistrarOwnerRules(Config.empty()));
        var mute = new DelegatingDht(memory) {
            @Override
            public CompletionStage<Updated> update(String aor, byte[] change) {
                return CompletableFuture.completedFuture(new Updated(BindingSet.absent(aor), false));
            }
        };
        var service = new RegistrarService(mute, Config.empty(), clock);
        assertEquals(DhtException.Reason.STORAGE, failureOf(service.register(request("sip:bob@a", "c"))).reason());
        memory.close();
    }

    @Test
    void aDhtWithoutTheRulesAtItsOwnersIsRefused() {
        var bare = new MemoryDht(clock, Duration.ofHours(1));
        var e = assertThrows(IllegalArgumentException.class, () -> new RegistrarService(bare, Config.empty(), clock));
        assertTrue(e.getMessage().contains("applies no changes"), e.getMessage());
        bare.close();
    }

    @Test
    void aFlowRemovalThatLosesARaceToAnotherNodesRegistrationKeepsThatRegistration() {
        var shared = new MemoryDht(clock, Duration.ofHours(1), new RegistrarOwnerRules(Config.empty()));
        var otherNode = new RegistrarService(shared, Config.empty(), clock);
        RegistrarRulesTest.await(otherNode.register(request("sip:bob@desk", "call-desk")));
        var racing = new DelegatingDht(shared) {
            final AtomicBoolean raced = new AtomicBoolean();

            @Override
            public CompletionStage<Boolean> put(BindingSet next) {
                if (raced.compareAndSet(false, true)) {
                    // another node adds a contact between this node's read and its write of the removal
                    RegistrarRulesTest.await(otherNode.register(request("sip:bob@mobile", "call-mobile")));
                }
                return super.put(next);
            }
        };
        var service = new RegistrarService(racing, Config.empty(), clock);
        assertTrue(RegistrarRulesTest.await(service.dropFlow(AOR, "sip:bob@desk")));
        assertEquals(List.of("sip:bob@mobile"), RegistrarRulesTest.await(shared.get(AOR)).bindings().stream().map(Binding::contact).toList(),
                "the removal applied again to the record that refused it: the other node's registration stays");
        shared.close();
    }

    @Test
    void aFlowRemovalThatLosesEveryRaceGivesUpAfterItsAttempts() {
        var memory = new MemoryDht(clock, Duration.ofHours(1), new RegistrarOwnerRules(Config.empty()));
        var puts = new AtomicInteger();
        var alwaysLosing = new DelegatingDht(memory) {
            @Override
            public CompletionStage<Boolean> put(BindingSet next) {
                puts.incrementAndGet();
                return CompletableFuture.completedFuture(false);
            }
        };
        var service = new RegistrarService(alwaysLosing, Config.of(Map.of("p2psip.registrar.cas-attempts", "3")), clock);
        RegistrarRulesTest.await(service.register(request("sip:bob@desk", "c")));
        assertFalse(RegistrarRulesTest.await(service.dropFlow(AOR, "sip:bob@desk")));
        assertEquals(3, puts.get());
        assertEquals(1, RegistrarRulesTest.await(memory.get(AOR)).bindings().size(), "nothing removed");
        memory.close();
    }

    @Test
    void whatTheRequestAloneRefusesIsRefusedBeforeAnyDhtWork() {
        var memory = new MemoryDht(clock, Duration.ofHours(1), new RegistrarOwnerRules(Config.empty()));
        var service = new RegistrarService(memory, Config.empty(), clock);
        var pathWithoutSupported = new RegisterRequest(AOR, "c", 1, null, false,
                List.of(new ContactSpec("sip:bob@a", 600L, Binding.Q_UNSPECIFIED, "", 0)), List.of("<sip:edge.example.com;lr>"));
        var refused = assertInstanceOf(Reply.Refused.class, RegistrarRulesTest.await(service.register(pathWithoutSupported)));
        assertEquals(Rejection.PATH_NOT_SUPPORTED, refused.rejection());
        assertEquals(Map.of("memory.gets", 0L, "memory.puts", 0L, "memory.updates", 0L), costs(memory));
        memory.close();
    }

    private static Map<String, Long> costs(MemoryDht memory) {
        var all = memory.metrics();
        return Map.of("memory.gets", all.get("memory.gets"), "memory.puts", all.get("memory.puts"),
                "memory.updates", all.get("memory.updates"));
    }

    @Test
    void aDhtThatNeverAnswersFailsWithTimeoutAtTheDeadline() {
        var silent = new DelegatingDht(new MemoryDht(Clock.systemUTC(), Duration.ofHours(1), new RegistrarOwnerRules(Config.empty()))) {
            @Override
            public CompletionStage<BindingSet> get(String aor) {
                return new CompletableFuture<>();
            }

            @Override
            public CompletionStage<Updated> update(String aor, byte[] change) {
                return new CompletableFuture<>();
            }
        };
        var service = new RegistrarService(silent, Config.of(Map.of("p2psip.dht.deadline", "200ms")), clock);
        assertEquals(DhtException.Reason.TIMEOUT, failureOf(service.register(request("sip:bob@x", "c"))).reason());
        assertEquals(DhtException.Reason.TIMEOUT, failureOf(service.locate(AOR)).reason());
    }

    @Test
    void aDhtFailureReachesTheCallerAsItsOwnReason() {
        var unreachable = new DelegatingDht(new MemoryDht(clock, Duration.ofHours(1), new RegistrarOwnerRules(Config.empty()))) {
            @Override
            public CompletionStage<BindingSet> get(String aor) {
                return CompletableFuture.failedFuture(new DhtException(DhtException.Reason.UNREACHABLE, "owner down"));
            }
        };
        var service = new RegistrarService(unreachable, Config.empty(), clock);
        assertEquals(DhtException.Reason.UNREACHABLE, failureOf(service.locate(AOR)).reason());
    }

    static RegisterRequest request(String contact, String callId) {
        return new RegisterRequest(AOR, callId, 1, null, false,
                List.of(new ContactSpec(contact, 600L, Binding.Q_UNSPECIFIED, "", 0)), List.of());
    }

    static DhtException failureOf(CompletionStage<?> stage) {
        var e = assertThrows(ExecutionException.class, () -> stage.toCompletableFuture().get(10, TimeUnit.SECONDS));
        return assertInstanceOf(DhtException.class, e.getCause());
    }

    /** A Dht that passes everything on; tests override the one call they make misbehave. */
    static class DelegatingDht implements Dht {
        final Dht inner;

        DelegatingDht(Dht inner) {
            this.inner = inner;
        }

        @Override
        public CompletionStage<BindingSet> get(String aor) {
            return inner.get(aor);
        }

        @Override
        public CompletionStage<Boolean> put(BindingSet next) {
            return inner.put(next);
        }

        @Override
        public CompletionStage<Boolean> remove(String aor, long version) {
            return inner.remove(aor, version);
        }

        @Override
        public boolean appliesChanges() {
            return inner.appliesChanges();
        }

        @Override
        public CompletionStage<Updated> update(String aor, byte[] change) {
            return inner.update(aor, change);
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
