package org.p2psip.dht.bamboo.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.bamboo.BambooOptions;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.store.Record;
import org.p2psip.dht.ring.store.RecordMerge;
import org.p2psip.dht.bamboo.storage.ValueStore.Found;
import org.p2psip.dht.bamboo.storage.ValueStore.Page;
import org.p2psip.dht.bamboo.storage.ValueStore.Removal;
import org.p2psip.dht.contract.MutableClock;

class JeStorageTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<JeStorage> open = new ArrayList<>();
    @TempDir
    Path dir;

    private static final Id KEY = Id.hash("sip:alice@example.com");
    private static final byte[] SECRET = bytes("only-the-owner-knows");

    @AfterEach
    void closeAll() {
        open.forEach(JeStorage::close);
    }

    @Test
    void aPutValueIsReturnedWithTheTimeItHasLeft() {
        JeStorage store = open(Config.empty());
        await(store.put(KEY, bytes("v1"), Duration.ofSeconds(60), Id.sha1(SECRET)));
        clock.advance(Duration.ofSeconds(15));
        Page page = await(store.get(KEY, 10, new byte[0]));
        assertEquals(1, page.values().size());
        assertArrayEquals(bytes("v1"), page.values().get(0).value());
        assertEquals(Duration.ofSeconds(45), page.values().get(0).remaining());
        assertFalse(page.hasMore());
    }

    @Test
    void aGetPagesThroughManyValuesWithItsPlacemark() {
        JeStorage store = open(Config.empty());
        for (int i = 0; i < 25; i++) {
            await(store.put(KEY, bytes("value-" + i), Duration.ofMinutes(5), Id.sha1(SECRET)));
        }
        Set<String> seen = new HashSet<>();
        byte[] placemark = new byte[0];
        int pages = 0;
        do {
            Page page = await(store.get(KEY, 10, placemark));
            page.values().forEach(f -> assertTrue(seen.add(text(f)), "value returned twice: " + text(f)));
            placemark = page.placemark();
            pages++;
        } while (placemark.length > 0);
        assertEquals(25, seen.size());
        assertEquals(3, pages);
    }

    @Test
    void removingWithAWrongSecretIsRefusedAndLeavesTheValue() {
        JeStorage store = open(Config.empty());
        await(store.put(KEY, bytes("v1"), Duration.ofMinutes(5), Id.sha1(SECRET)));
        assertEquals(Removal.WRONG_SECRET, await(store.remove(KEY, Id.sha1(bytes("v1")), bytes("a guess"))));
        assertEquals(1, await(store.get(KEY, 10, new byte[0])).values().size(), "the value must still be there");
        assertEquals(Removal.REMOVED, await(store.remove(KEY, Id.sha1(bytes("v1")), SECRET)));
        assertEquals(List.of(), await(store.get(KEY, 10, new byte[0])).values());
        assertEquals(Removal.ABSENT, await(store.remove(KEY, Id.sha1(bytes("v1")), SECRET)));
    }

    @Test
    void aStoreReopenedOnItsDirectoryServesWhatItStoredButNotWhatExpired() {
        JeStorage first = open(Config.empty());
        Id shortKey = Id.hash("short");
        await(first.put(KEY, bytes("kept"), Duration.ofHours(1), Id.sha1(SECRET)));
        await(first.put(shortKey, bytes("brief"), Duration.ofSeconds(30), Id.sha1(SECRET)));
        first.close();
        open.remove(first);
        clock.advance(Duration.ofMinutes(1));

        JeStorage again = open(Config.empty());
        assertEquals(List.of("kept"), await(again.get(KEY, 10, new byte[0])).values().stream().map(JeStorageTest::text).toList());
        assertEquals(List.of(), await(again.get(shortKey, 10, new byte[0])).values(), "a value past its TTL is gone after restart");
    }

    @Test
    void theSweepDeletesExpiredRecordsThroughTheExpiryIndex() {
        JeStorage store = open(Config.empty());
        for (int i = 0; i < 50; i++) {
            await(store.put(Id.hash("k" + i), bytes("v"), Duration.ofSeconds(i < 30 ? 10 : 1000), Id.sha1(SECRET)));
        }
        clock.advance(Duration.ofSeconds(11));
        assertEquals(30, await(store.sweep()));
        assertEquals(0, await(store.sweep()));
        assertEquals(20, await(store.snapshot()).size());
    }

    @Test
    void aMergeTakesACopyOnlyWhenItsStampIsNewer() {
        JeStorage store = open(Config.empty());
        await(store.put(KEY, bytes("v1"), Duration.ofMinutes(5), Id.sha1(SECRET)));
        await(store.put(KEY, bytes("v2"), Duration.ofMinutes(5), Id.sha1(SECRET)));
        long expires = clock.millis() + 60_000;
        var old = List.of(new StoredValue(bytes("old"), expires, 1, Id.sha1(SECRET), false));
        await(store.merge(KEY, old));
        assertEquals(Set.of("v1", "v2"), texts(store));
        var fresh = List.of(new StoredValue(bytes("fresh"), expires, 3, Id.sha1(SECRET), false));
        await(store.merge(KEY, fresh));
        assertEquals(Set.of("fresh"), texts(store));
    }

    @Test
    void twoRootsRecordsOfOneAorMergeContactByContact() {
        JeStorage store = open(Config.empty());
        String aor = "sip:alice@example.com";
        long now = clock.millis();
        long until = now + 3_600_000;
        BindingSet base = new BindingSet(aor, 1, until, List.of(binding(aor, "sip:both@192.0.2.1", until)));
        Record shared = RecordMerge.written(null, base, false, aor, 1, now, 0);
        await(store.merge(KEY, List.of(StoredValue.of(shared, Id.sha1(SECRET)))));
        // the two sides of a split: one root adds a contact, the other adds another and drops the shared one
        clock.advance(Duration.ofSeconds(1));
        Record first = RecordMerge.written(shared, base.next(List.of(base.bindings().get(0),
                binding(aor, "sip:first@192.0.2.2", until)), until), false, aor, 2, clock.millis(), 0);
        clock.advance(Duration.ofSeconds(1));
        Record second = RecordMerge.written(shared, base.next(List.of(binding(aor, "sip:second@192.0.2.3", until)), until),
                false, aor, 2, clock.millis(), 0);

        await(store.merge(KEY, List.of(StoredValue.of(first, Id.sha1(SECRET)))));
        assertEquals(Set.of("sip:both@192.0.2.1", "sip:first@192.0.2.2"), contacts(store), "along one line: the newer copy");
        await(store.merge(KEY, List.of(StoredValue.of(second, Id.sha1(SECRET)))));
        assertEquals(Set.of("sip:first@192.0.2.2", "sip:second@192.0.2.3"), contacts(store), "both sides' writes kept");
        Record merged = held(store);
        assertTrue(merged.stamp() > 2 && merged.set().version() > 2, "past both sides: " + merged);
        await(store.merge(KEY, List.of(StoredValue.of(first, Id.sha1(SECRET)))));
        await(store.merge(KEY, List.of(StoredValue.of(shared, Id.sha1(SECRET)))));
        assertEquals(merged, held(store), "an older copy of either side changes nothing");
    }

    @Test
    void aFullQueueRefusesAtOnceAsOverloaded() throws Exception {
        JeStorage store = open(Config.empty().with(BambooOptions.STORAGE_QUEUE.name(), "2")
                .with(BambooOptions.STORAGE_BATCH.name(), "1"));
        var running = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        CompletionStage<?> blocker = store.update(KEY, current -> {
            running.countDown();
            awaitLatch(release);
            return null;
        });
        assertTrue(running.await(20, TimeUnit.SECONDS));
        List<CompletionStage<?>> queued = List.of(store.get(KEY, 1, new byte[0]), store.get(KEY, 1, new byte[0]));
        var refused = assertThrows(ExecutionException.class,
                () -> store.get(KEY, 1, new byte[0]).toCompletableFuture().get(20, TimeUnit.SECONDS));
        assertEquals(DhtException.Reason.OVERLOADED, ((DhtException) refused.getCause()).reason());
        release.countDown();
        await(blocker);
        queued.forEach(JeStorageTest::await);
    }

    @Test
    void aJeFailureFailsTheOperationAsStorageAndTheStoreGoesOn() {
        JeStorage store = open(Config.empty());
        var failure = assertThrows(ExecutionException.class, () -> store.update(KEY, current -> {
            throw new JeFailure("no space left on device");
        }).toCompletableFuture().get(20, TimeUnit.SECONDS));
        assertEquals(DhtException.Reason.STORAGE, ((DhtException) failure.getCause()).reason());
        await(store.put(KEY, bytes("after"), Duration.ofMinutes(1), Id.sha1(SECRET)));
        assertEquals(1, await(store.get(KEY, 10, new byte[0])).values().size(), "the store still works");
    }

    @Test
    void writesQueuedTogetherShareOneFsync() {
        JeStorage store = open(Config.empty().with(BambooOptions.STORAGE_FSYNC.name(), "true"));
        List<CompletionStage<Void>> puts = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            puts.add(store.put(Id.hash("k" + i), bytes("v" + i), Duration.ofMinutes(5), Id.sha1(SECRET)));
        }
        puts.forEach(JeStorageTest::await);
        long writes = store.metrics().get("bamboo.storage.writes");
        long fsyncs = store.metrics().get("bamboo.storage.fsyncs");
        assertEquals(2000, writes);
        assertTrue(fsyncs > 0 && fsyncs * 4 <= writes,
                "2000 writes queued at once must share fsyncs (group commit), got " + fsyncs + " fsyncs");
    }

    /** What JE throws when the disk fails; its constructors are for subclasses. */
    private static final class JeFailure extends com.sleepycat.je.DatabaseException {
        JeFailure(String message) {
            super(message);
        }
    }

    private JeStorage open(Config config) {
        JeStorage store = JeStorage.open(dir.resolve("je"), config, clock, Runnable::run);
        open.add(store);
        return store;
    }

    private Set<String> texts(JeStorage store) {
        Set<String> out = new HashSet<>();
        await(store.get(KEY, 100, new byte[0])).values().forEach(f -> out.add(text(f)));
        return out;
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static <T> T await(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("storage operation failed or hung: " + e, e);
        }
    }

    private static String text(Found f) {
        return new String(f.value(), StandardCharsets.UTF_8);
    }

    private static Binding binding(String aor, String contact, long expiresAt) {
        return new Binding(aor, contact, expiresAt, Binding.Q_UNSPECIFIED, "call-" + contact, 1, List.of(), "", 0);
    }

    private static Record held(JeStorage store) {
        List<StoredValue> values = await(store.values(KEY));
        assertEquals(1, values.size(), "one record under the key: " + values);
        return values.get(0).record(KEY);
    }

    private Set<String> contacts(JeStorage store) {
        return Set.copyOf(held(store).visibleAt(clock.millis()).bindings().stream().map(Binding::contact).toList());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
