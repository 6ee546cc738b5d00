package org.p2psip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.contract.MutableClock;
import org.p2psip.dht.memory.MemoryDht;

/** How the service drives the DHT: compare-and-set retries and deadlines. */
class RegistrarServiceTest {

    static final String AOR = "sip:bob@example.com";
    final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T12:00:00Z"));

    @Test
    void aRegisterThatLosesARaceToAnotherNodeRetriesAndKeepsBothContacts() throws Exception {
        var shared = new MemoryDht(clock, Duration.ofHours(1));
        var otherNode = new RegistrarService(shared, Config.empty(), clock);
        var racing = new DelegatingDht(shared) {
            final AtomicBoolean raced = new AtomicBoolean();

            @Override
            public CompletionStage<Boolean> put(BindingSet next) {
                if (raced.compareAndSet(false, true)) {
                    // another node registers the same AOR between this node's read and write
                    RegistrarRulesTest.await(otherNode.register(request("sip:bob@other", "call-other")));
                }
                return super.put(next);
            }
        };
        var service = new RegistrarService(racing, Config.empty(), clock);
        var reply = assertInstanceOf(Reply.Registered.class, RegistrarRulesTest.await(service.register(request("sip:bob@mine", "call-mine"))));
        assertEquals(List.of("sip:bob@mine", "sip:bob@other"), reply.bindings().stream().map(Binding::contact).sorted().toList());
        assertEquals(2, RegistrarRulesTest.await(shared.get(AOR)).bindings().size());
        shared.close();
    }

    @Test
    void aRegisterThatLosesEveryRaceFailsOverloadedAfterItsAttempts() {
        var alwaysLosing = new DelegatingDht(new MemoryDht(clock, Duration.ofHours(1))) {
            @Override
            public CompletionStage<Boolean> put(BindingSet next) {
                return CompletableFuture.completedFuture(false);
            }
        };
        var service = new RegistrarService(alwaysLosing, Config.of(Map.of("p2psip.registrar.cas-attempts", "3")), clock);
        var failure = failureOf(service.register(request("sip:bob@x", "c")));
        assertEquals(DhtException.Reason.OVERLOADED, failure.reason());
    }

    @Test
    void aFirstRegistrationIsOneWriteAndARefreshTwoWithoutARead() {
        var memory = new MemoryDht(clock, Duration.ofHours(1));
        var service = new RegistrarService(memory, Config.empty(), clock);
        assertInstanceOf(Reply.Registered.class, RegistrarRulesTest.await(service.register(request("sip:bob@a", "c"))));
        assertEquals(Map.of("memory.gets", 0L, "memory.puts", 1L), costs(memory), "a first registration writes once");
        var refresh = new RegisterRequest(AOR, "c", 2, null, false,
                List.of(new ContactSpec("sip:bob@b", 600L, Binding.Q_UNSPECIFIED, "", 0)), List.of());
        var reply = assertInstanceOf(Reply.Registered.class, RegistrarRulesTest.await(service.register(refresh)));
        assertEquals(List.of("sip:bob@a", "sip:bob@b"), reply.bindings().stream().map(Binding::contact).sorted().toList(),
                "the refresh applied to the record its refused guess answered");
        assertEquals(Map.of("memory.gets", 0L, "memory.puts", 3L), costs(memory), "a refresh: the refused guess, the write");
        memory.close();
    }

    @Test
    void aRefusalIsOnlyGivenOnTheRecordRead() {
        var memory = new MemoryDht(clock, Duration.ofHours(1));
        var service = new RegistrarService(memory, Config.empty(), clock);
        RegistrarRulesTest.await(service.register(request("sip:bob@a", "c")));
        // the same Call-ID and CSeq again: out of order against the stored binding (RFC 3261 §10.3 step 7),
        // which the guess of an absent AOR could not have told
        var replay = assertInstanceOf(Reply.Refused.class, RegistrarRulesTest.await(service.register(request("sip:bob@a", "c"))));
        assertEquals(Rejection.OUT_OF_ORDER, replay.rejection());
        memory.close();
    }

    @Test
    void aRemovalForAnAorNeverRegisteredReadsOnceAndWritesNothing() {
        var memory = new MemoryDht(clock, Duration.ofHours(1));
        var service = new RegistrarService(memory, Config.empty(), clock);
        var wildcard = new RegisterRequest(AOR, "w", 1, 0L, true, List.of(), List.of());
        assertEquals(List.of(), assertInstanceOf(Reply.Registered.class, RegistrarRulesTest.await(service.register(wildcard))).bindings());
        var allZero = new RegisterRequest(AOR, "z", 1, null, false,
                List.of(new ContactSpec("sip:bob@a", 0L, Binding.Q_UNSPECIFIED, "", 0)), List.of());
        assertEquals(List.of(), assertInstanceOf(Reply.Registered.class, RegistrarRulesTest.await(service.register(allZero))).bindings());
        assertEquals(Map.of("memory.gets", 2L, "memory.puts", 0L), costs(memory), "the guess may not answer a removal; the read does");
        memory.close();
    }

    @Test
    void aRemovalThatLosesARaceToAnotherNodesRegistrationKeepsThatRegistration() {
        var shared = new MemoryDht(clock, Duration.ofHours(1));
        var otherNode = new RegistrarService(shared, Config.empty(), clock);
        RegistrarRulesTest.await(otherNode.register(request("sip:bob@desk", "call-desk")));
        var racing = new DelegatingDht(shared) {
            final AtomicBoolean raced = new AtomicBoolean();

            @Override
            public CompletionStage<Boolean> put(BindingSet next) {
                if (next.version() > 0 && raced.compareAndSet(false, true)) {
                    // another node adds a contact between this node's read and its write of the removal
                    RegistrarRulesTest.await(otherNode.register(request("sip:bob@mobile", "call-mobile")));
                }
                return super.put(next);
            }
        };
        var service = new RegistrarService(racing, Config.empty(), clock);
        var removal = new RegisterRequest(AOR, "call-remove", 1, null, false,
                List.of(new ContactSpec("sip:bob@desk", 0L, Binding.Q_UNSPECIFIED, "", 0)), List.of());
        var reply = assertInstanceOf(Reply.Registered.class, RegistrarRulesTest.await(service.register(removal)));
        assertEquals(List.of("sip:bob@mobile"), reply.bindings().stream().map(Binding::contact).toList());
        assertEquals(List.of("sip:bob@mobile"), RegistrarRulesTest.await(shared.get(AOR)).bindings().stream().map(Binding::contact).toList());
        shared.close();
    }

    @Test
    void whatTheRequestAloneRefusesIsRefusedBeforeAnyDhtWork() {
        var memory = new MemoryDht(clock, Duration.ofHours(1));
        var service = new RegistrarService(memory, Config.empty(), clock);
        var pathWithoutSupported = new RegisterRequest(AOR, "c", 1, null, false,
                List.of(new ContactSpec("sip:bob@a", 600L, Binding.Q_UNSPECIFIED, "", 0)), List.of("<sip:edge.example.com;lr>"));
        var refused = assertInstanceOf(Reply.Refused.class, RegistrarRulesTest.await(service.register(pathWithoutSupported)));
        assertEquals(Rejection.PATH_NOT_SUPPORTED, refused.rejection());
        assertEquals(Map.of("memory.gets", 0L, "memory.puts", 0L), costs(memory));
        memory.close();
    }

    private static Map<String, Long> costs(MemoryDht memory) {
        return Map.of("memory.gets", memory.metrics().get("memory.gets"), "memory.puts", memory.metrics().get("memory.puts"));
    }

    @Test
    void aDhtThatNeverAnswersFailsWithTimeoutAtTheDeadline() {
        var silent = new DelegatingDht(new MemoryDht(Clock.systemUTC(), Duration.ofHours(1))) {
            @Override
            public CompletionStage<BindingSet> get(String aor) {
                return new CompletableFuture<>();
            }

            @Override
            public CompletionStage<Boolean> put(BindingSet next) {
                return new CompletableFuture<>();
            }
        };
        var service = new RegistrarService(silent, Config.of(Map.of("p2psip.dht.deadline", "200ms")), clock);
        assertEquals(DhtException.Reason.TIMEOUT, failureOf(service.register(request("sip:bob@x", "c"))).reason());
        assertEquals(DhtException.Reason.TIMEOUT, failureOf(service.locate(AOR)).reason());
    }

    @Test
    void aDhtFailureReachesTheCallerAsItsOwnReason() {
        var unreachable = new DelegatingDht(new MemoryDht(clock, Duration.ofHours(1))) {
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
        public void close() {
            inner.close();
        }
    }
}
