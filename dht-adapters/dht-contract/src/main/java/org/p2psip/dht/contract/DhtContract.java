package org.p2psip.dht.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;

/**
 * What every DHT backend must do, as one JUnit 5 suite. A backend's test extends it and
 * overrides only how the backend is made ({@link #createDht}) and, for an overlay, how a second
 * node of the same overlay is reached ({@link #anotherNode}).
 */
public abstract class DhtContract {

    /**
     * The rules a backend under test applies to changes ({@link Dht#update}), for its tests to
     * build it with: a change is a contact URI in UTF-8, bound for an hour and answered "added",
     * unless the AOR already has it (nothing written, answered "present"); a change "refuse:WHY"
     * writes nothing and answers "refused:WHY", as the registrar's rules answer a refusal; an empty
     * change cannot be read.
     */
    public static final OwnerRules ADD_CONTACT = (current, change, now) -> {
        if (change.length == 0) {
            throw new MalformedBindingException("an empty change");
        }
        String contact = new String(change, StandardCharsets.UTF_8);
        if (contact.startsWith("refuse:")) {
            return new Updated(current, false, utf8("refused:" + contact.substring("refuse:".length())));
        }
        if (current.bindings().stream().anyMatch(b -> b.contact().equals(contact))) {
            return new Updated(current, false, utf8("present"));
        }
        var next = new ArrayList<>(current.bindings());
        next.add(new Binding(current.aor(), contact, now + 3_600_000, 1000, "call-" + contact, 1, List.of(), "", 0));
        return new Updated(current.next(next, Math.max(current.retainUntil(), now + 86_400_000)), true, utf8("added"));
    };

    /** The clock every backend under test reads expiry from; tests move it instead of sleeping. */
    protected final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<Dht> opened = new ArrayList<>();
    protected Dht dht;

    /** A fresh, empty backend that reads time from {@code clock}. */
    protected abstract Dht createDht(Clock clock) throws Exception;

    /**
     * Another node of the same store as {@code first}, so that what one writes the other reads.
     * A backend without nodes returns {@code first}.
     */
    protected Dht anotherNode(Dht first) throws Exception {
        return first;
    }

    /** How long a test waits for one operation before calling the backend hung. */
    protected Duration patience() {
        return Duration.ofSeconds(20);
    }

    @BeforeEach
    void open() throws Exception {
        dht = track(createDht(clock));
    }

    @AfterEach
    void closeAll() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
    }

    protected Dht track(Dht d) {
        if (!opened.contains(d)) {
            opened.add(d);
        }
        return d;
    }

    @Test
    void anAorNeverWrittenIsAbsent() {
        BindingSet got = await(dht.get("sip:nobody@example.com"));
        assertFalse(got.exists(), "expected no record, got " + got);
        assertEquals(0, got.version());
        assertEquals(List.of(), got.bindings());
    }

    @Test
    void aPutOnAnAbsentAorStoresVersionOne() throws Exception {
        BindingSet written = set("sip:alice@example.com", 0, binding("sip:alice@example.com", "sip:alice@10.0.0.1:5060", 3600));
        assertTrue(await(dht.put(written)), "put on an absent AOR with version 0 must succeed");
        BindingSet got = await(other().get("sip:alice@example.com"));
        assertEquals(written.stored(), got);
    }

    @Test
    void aPutWithAStaleVersionIsRefusedAndChangesNothing() throws Exception {
        String aor = "sip:bob@example.com";
        assertTrue(await(dht.put(set(aor, 0, binding(aor, "sip:bob@a", 3600)))));
        assertTrue(await(dht.put(set(aor, 1, binding(aor, "sip:bob@b", 3600)))));
        assertFalse(await(other().put(set(aor, 1, binding(aor, "sip:bob@stale", 3600)))),
                "a put carrying version 1 after version 2 was stored must be refused");
        assertFalse(await(other().put(set(aor, 0, binding(aor, "sip:bob@fresh", 3600)))),
                "a put carrying version 0 on an existing AOR must be refused");
        BindingSet got = await(dht.get(aor));
        assertEquals(2, got.version());
        assertEquals(List.of("sip:bob@b"), contacts(got));
    }

    @Test
    void putOrCurrentStoresOnTheRightVersionAndOtherwiseAnswersTheRecordUnchanged() throws Exception {
        String aor = "sip:erin@example.com";
        assertEquals(Optional.empty(), await(dht.putOrCurrent(set(aor, 0, binding(aor, "sip:erin@a", 3600)))),
                "a put on an absent AOR with version 0 stores and answers nothing more");
        Optional<BindingSet> refused = await(other().putOrCurrent(set(aor, 0, binding(aor, "sip:erin@guess", 3600))));
        assertTrue(refused.isPresent(), "a put on a guessed version must be refused");
        assertEquals(await(dht.get(aor)), refused.get(), "a refused put answers the record as get reads it");
        assertEquals(List.of("sip:erin@a"), contacts(refused.get()));
        assertEquals(Optional.empty(), await(other().putOrCurrent(refused.get().next(
                List.of(binding(aor, "sip:erin@b", 3600)), clock.millis() + 7_200_000))));
        BindingSet got = await(dht.get(aor));
        assertEquals(2, got.version());
        assertEquals(List.of("sip:erin@b"), contacts(got));
    }

    @Test
    void writersThatGuessAnAbsentAorAndRetryOnTheAnsweredRecordLoseNoUpdate() throws Exception {
        String aor = "sip:guessed@example.com";
        Dht[] nodes = {dht, other()};
        List<CompletableFuture<Void>> writers = new ArrayList<>();
        for (int w = 0; w < 40; w++) {
            writers.add(addFrom(nodes[w % 2], BindingSet.absent(aor), "sip:g" + w + "@x").toCompletableFuture());
        }
        for (var writer : writers) {
            await(writer);
        }
        assertEquals(40, await(dht.get(aor)).bindings().size(), "every guessing writer's binding must be there");
    }

    @Test
    void aPutReplacesTheWholeSet() throws Exception {
        String aor = "sip:carol@example.com";
        assertTrue(await(dht.put(set(aor, 0, binding(aor, "sip:carol@a", 3600), binding(aor, "sip:carol@b", 3600)))));
        assertTrue(await(other().put(set(aor, 1, binding(aor, "sip:carol@c", 3600)))));
        assertEquals(List.of("sip:carol@c"), contacts(await(dht.get(aor))));
    }

    @Test
    void expiredBindingsAreNotReturned() throws Exception {
        String aor = "sip:dave@example.com";
        assertTrue(await(dht.put(set(aor, 0, binding(aor, "sip:dave@short", 60), binding(aor, "sip:dave@long", 3600)))));
        clock.advance(Duration.ofSeconds(61));
        BindingSet got = await(other().get(aor));
        assertEquals(List.of("sip:dave@long"), contacts(got), "the binding that expired after 60 s must be gone");
        assertEquals(1, got.version(), "filtering expired bindings on read does not change the version");
    }

    @Test
    void aRecordOutlivesItsBindingsUntilItsRetentionThenIsForgotten() throws Exception {
        String aor = "sip:erin@example.com";
        long retainUntil = clock.millis() + Duration.ofHours(2).toMillis();
        var written = new BindingSet(aor, 0, retainUntil, List.of(binding(aor, "sip:erin@a", 60)));
        assertTrue(await(dht.put(written)));
        clock.advance(Duration.ofMinutes(5));
        BindingSet expired = await(other().get(aor));
        assertTrue(expired.exists(), "a record within its retention exists even with no live binding");
        assertEquals(List.of(), expired.bindings());
        clock.advance(Duration.ofHours(2));
        assertFalse(await(other().get(aor)).exists(), "a record past its retention is forgotten");
    }

    @Test
    void anEmptySetIsStoredAsARecordWithoutBindings() throws Exception {
        String aor = "sip:frank@example.com";
        assertTrue(await(dht.put(set(aor, 0, binding(aor, "sip:frank@a", 3600)))));
        assertTrue(await(dht.put(set(aor, 1))));
        BindingSet got = await(other().get(aor));
        assertTrue(got.exists());
        assertEquals(2, got.version());
        assertEquals(List.of(), got.bindings());
    }

    @Test
    void removeWithTheCurrentVersionForgetsTheRecord() throws Exception {
        String aor = "sip:grace@example.com";
        assertTrue(await(dht.put(set(aor, 0, binding(aor, "sip:grace@a", 3600)))));
        assertFalse(await(other().remove(aor, 7)), "remove with a version never stored must be refused");
        assertTrue(await(dht.get(aor)).exists(), "a refused remove changes nothing");
        assertTrue(await(other().remove(aor, 1)));
        assertFalse(await(dht.get(aor)).exists());
        assertFalse(await(dht.remove(aor, 1)), "removing an absent record reports false");
    }

    @Test
    void everyFieldOfABindingSurvivesTheStore() throws Exception {
        String aor = "sip:h\u00e9l\u00e8ne@example.com";
        var full = new Binding(aor, "sip:helene@192.0.2.7:5070;transport=tcp;ob", clock.millis() + 1_800_000, 700,
                "a84b4c76e66710@pc33.example.com", 314159, List.of("<sip:edge1.example.com;lr>", "<sip:edge2.example.com;lr>"),
                "<urn:uuid:00000000-0000-1000-8000-000A95A0E128>", 2);
        var plain = new Binding(aor, "sip:helene@198.51.100.1", clock.millis() + 60_000, Binding.Q_UNSPECIFIED,
                "x", 1, List.of(), "", 0);
        assertTrue(await(dht.put(set(aor, 0, full, plain))));
        BindingSet got = await(other().get(aor));
        assertEquals(Set.of(full, plain), new HashSet<>(got.bindings()));
    }

    @Test
    void aSetOfManyBindingsIsKeptWhole() throws Exception {
        String aor = "sip:many@example.com";
        Binding[] bindings = new Binding[200];
        for (int i = 0; i < bindings.length; i++) {
            bindings[i] = binding(aor, "sip:many@10.1." + (i / 250) + "." + (i % 250), 3600);
        }
        assertTrue(await(dht.put(set(aor, 0, bindings))));
        assertEquals(bindings.length, await(other().get(aor)).bindings().size());
    }

    @Test
    void aThousandAorsWrittenThroughOneNodeAreAllFoundThroughAnother() throws Exception {
        List<CompletableFuture<Boolean>> puts = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            String aor = "sip:user" + i + "@example.com";
            puts.add(dht.put(set(aor, 0, binding(aor, "sip:user" + i + "@10.0.0.1", 3600))).toCompletableFuture());
        }
        for (var put : puts) {
            assertTrue(await(put));
        }
        Dht reader = other();
        for (int i = 0; i < 1000; i++) {
            String aor = "sip:user" + i + "@example.com";
            assertEquals(List.of("sip:user" + i + "@10.0.0.1"), contacts(await(reader.get(aor))), aor);
        }
    }

    @Test
    void concurrentWritersOfOneAorThroughTwoNodesLoseNoUpdate() throws Exception {
        String aor = "sip:contended@example.com";
        Dht[] nodes = {dht, other()};
        List<CompletableFuture<Void>> writers = new ArrayList<>();
        int perWriter = 10;
        for (int w = 0; w < 8; w++) {
            Dht node = nodes[w % 2];
            for (int i = 0; i < perWriter; i++) {
                writers.add(addWithRetry(node, aor, "sip:w" + w + "i" + i + "@x").toCompletableFuture());
            }
        }
        for (var writer : writers) {
            await(writer);
        }
        BindingSet got = await(dht.get(aor));
        assertEquals(8 * perWriter, got.bindings().size(), "every compare-and-set writer's binding must be there");
        assertEquals(8L * perWriter, got.version(), "one version per accepted write");
    }

    @Test
    void operationsOnAClosedDhtFailInsteadOfHanging() {
        Dht closing = dht;
        closing.close();
        var failure = assertThrows(ExecutionException.class,
                () -> closing.get("sip:late@example.com").toCompletableFuture().get(patience().toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(DhtException.class, failure.getCause(), "a closed DHT fails with DhtException");
    }

    /** Adds one binding to {@code current} (read or guessed); on conflict, to the record answered. */
    private CompletionStage<Void> addFrom(Dht node, BindingSet current, String contact) {
        var next = new ArrayList<>(current.bindings());
        next.add(binding(current.aor(), contact, 3600));
        return node.putOrCurrent(current.next(next, clock.millis() + 7_200_000)).thenCompose(answered -> answered.isEmpty()
                ? CompletableFuture.<Void>completedFuture(null)
                : addFrom(node, answered.get(), contact));
    }

    /** Reads, adds one binding, writes with the version read; on conflict reads again. */
    private CompletionStage<Void> addWithRetry(Dht node, String aor, String contact) {
        return node.get(aor).thenCompose(current -> {
            var next = new ArrayList<>(current.bindings());
            next.add(binding(aor, contact, 3600));
            return node.put(current.next(next, clock.millis() + 7_200_000)).thenCompose(stored -> stored
                    ? CompletableFuture.<Void>completedFuture(null)
                    : addWithRetry(node, aor, contact));
        });
    }

    /**
     * A backend that applies changes applies them where the record is, whichever node asks: each
     * writes once, a change with nothing to change writes nothing and answers the record, one it
     * cannot read fails and changes nothing, and concurrent changes through two nodes all land.
     */
    @Test
    void anUpdateIsAppliedOnceWhereTheRecordIsWhicheverNodeAsks() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dht.appliesChanges(), "this backend applies no changes");
        String aor = "sip:frank@example.com";
        Updated first = await(other().update(aor, utf8("sip:frank@a")));
        assertTrue(first.written(), "a change to an absent AOR writes");
        assertEquals("added", new String(first.answer(), StandardCharsets.UTF_8), "the rules' answer comes back with the write");
        assertEquals(1, first.record().version());
        assertEquals(first.record(), await(dht.get(aor)), "what the update answered is what a get reads");
        Updated again = await(dht.update(aor, utf8("sip:frank@a")));
        assertFalse(again.written(), "a change with nothing to change writes nothing");
        assertEquals("present", new String(again.answer(), StandardCharsets.UTF_8), "the rules' answer comes back unwritten too");
        assertEquals(first.record(), again.record());
        Updated refused = await(other().update(aor, utf8("refuse:Interval Too Brief")));
        assertFalse(refused.written(), "a refused change writes nothing");
        assertEquals("refused:Interval Too Brief", new String(refused.answer(), StandardCharsets.UTF_8),
                "the rules' refusal comes back to the node that asked, whichever node owns the record");
        assertEquals(first.record(), refused.record(), "a refused change answers the record as it stands");
        assertEquals(first.record(), await(dht.get(aor)), "a refused change leaves the record as it was");
        CompletableFuture<?>[] many = new CompletableFuture<?>[20];
        for (int i = 0; i < many.length; i++) {
            Dht via = i % 2 == 0 ? dht : other();
            many[i] = via.update(aor, utf8("sip:frank@" + i)).toCompletableFuture();
        }
        await(CompletableFuture.allOf(many));
        for (CompletableFuture<?> each : many) {
            assertTrue(((Updated) each.join()).written(), "each concurrent change is applied, none lost to another");
        }
        assertThrows(AssertionError.class, () -> await(other().update(aor, new byte[0])), "an unreadable change fails");
        BindingSet last = await(other().get(aor));
        assertEquals(21, last.version(), "one version per write, and none for the unreadable change");
        assertEquals(21, last.bindings().size());
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    protected Dht other() throws Exception {
        return track(anotherNode(dht));
    }

    protected Binding binding(String aor, String contact, long seconds) {
        return new Binding(aor, contact, clock.millis() + seconds * 1000, 1000, "call-" + contact, 1, List.of(), "", 0);
    }

    protected BindingSet set(String aor, long version, Binding... bindings) {
        long retain = clock.millis() + Duration.ofDays(1).toMillis();
        return new BindingSet(aor, version, retain, List.of(bindings));
    }

    protected static List<String> contacts(BindingSet set) {
        return set.bindings().stream().map(Binding::contact).sorted().collect(Collectors.toList());
    }

    protected <T> T await(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(patience().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the DHT did not complete an operation within " + patience(), e);
        } catch (ExecutionException e) {
            throw new AssertionError("the DHT operation failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
