package org.p2psip.dht.bamboo.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.contract.MutableClock;

class SharedEnvironmentTest {

    private static final Id KEY = Id.hash("sip:alice@example.com");
    private static final byte[] SECRET_HASH = Id.sha1(bytes("secret"));
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    @TempDir
    Path dir;

    @Test
    void nodesSharingAnEnvironmentKeepTheirRecordsApartAndEveryStageIsCompleteWhenReturned() {
        try (var shared = SharedEnvironment.open(dir, Config.empty())) {
            JeStorage a = JeStorage.open(shared, "node-a:5060", clock);
            JeStorage b = JeStorage.open(shared, "node-b:5060", clock);
            CompletionStage<Void> put = a.put(KEY, bytes("a's"), Duration.ofMinutes(1), SECRET_HASH);
            assertTrue(put.toCompletableFuture().isDone(), "a put on a shared environment completes on the caller's thread");
            assertEquals(1, done(a.get(KEY, 10, new byte[0])).values().size(), "a holds what it stored");
            assertEquals(0, done(b.get(KEY, 10, new byte[0])).values().size(), "b does not see a's record");
            assertEquals(1L, a.metrics().get("bamboo.storage.writes"));
            assertEquals(2, shared.openStores());
        }
    }

    @Test
    void aClosedNodesRecordsStayUntilRemovedAndItsNameCannotBeOpenedTwice() {
        try (var shared = SharedEnvironment.open(dir, Config.empty())) {
            JeStorage a = JeStorage.open(shared, "node-a:5060", clock);
            done(a.put(KEY, bytes("kept"), Duration.ofMinutes(1), SECRET_HASH));
            assertThrows(IllegalStateException.class, () -> JeStorage.open(shared, "node-a:5060", clock),
                    "two live nodes must not share one node's databases");
            assertThrows(IllegalStateException.class, () -> shared.remove("node-a:5060"),
                    "an open node's databases are not dropped under it");
            a.close();
            assertNull(done(a.get(KEY, 10, new byte[0]).exceptionally(e -> null)), "a closed store refuses work");

            JeStorage again = JeStorage.open(shared, "node-a:5060", clock);
            assertEquals(1, done(again.get(KEY, 10, new byte[0])).values().size(), "a node reopened at its name finds its records");
            again.close();
            shared.remove("node-a:5060");
            JeStorage fresh = JeStorage.open(shared, "node-a:5060", clock);
            assertEquals(0, done(fresh.get(KEY, 10, new byte[0])).values().size(), "removed databases hold nothing");
        }
    }

    private static <T> T done(CompletionStage<T> stage) {
        CompletableFuture<T> f = stage.toCompletableFuture();
        assertTrue(f.isDone(), "the stage should be complete when returned");
        return f.join();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
