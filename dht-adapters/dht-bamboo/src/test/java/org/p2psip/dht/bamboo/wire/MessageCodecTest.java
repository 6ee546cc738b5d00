package org.p2psip.dht.bamboo.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.routing.NodeHandle;
import org.p2psip.dht.bamboo.storage.KeyValues;
import org.p2psip.dht.bamboo.storage.StoredValue;
import org.p2psip.dht.bamboo.storage.ValueStore;
import org.p2psip.dht.bamboo.wire.Message.*;

class MessageCodecTest {

    private static final NodeHandle A = new NodeHandle(Id.hash("a"), "127.0.0.1:6070");
    private static final NodeHandle B = new NodeHandle(Id.hash("b"), "127.0.0.1:6071");
    private static final Id KEY = Id.hash("sip:alice@example.com");
    private static final byte[] BYTES = {1, 2, 3};
    private static final byte[] HASH = Id.sha1(BYTES);

    static List<Message> everyType() {
        var value = new StoredValue(BYTES, 123, 4, HASH, true);
        return List.of(new Ping(A), new Pong(B), new LeafSetExchange(A, List.of(A, B)), new TableRequest(A, -1),
                new Handles(List.of(B)), new Lookup(A, KEY), new Lookup(A, KEY, List.of(B.id(), KEY)), new Hop(B, true), new Put(KEY, BYTES, 60_000, HASH),
                new Get(KEY, 8, new byte[0]), new Get(KEY, 8, HASH, List.of(A.id())), new Remove(KEY, HASH, BYTES), new Swap(KEY, 3, BYTES, BYTES),
                new Forget(KEY, 4, BYTES), new Store(A, List.of(new KeyValues(KEY, List.of(value)))), new Done(),
                new Outcome(true, new byte[0]), new Outcome(false, BYTES), new Applied(true, BYTES, HASH), new Values(List.of(new ValueStore.Found(BYTES, Duration.ofSeconds(5))), HASH),
                new Removed(ValueStore.Removal.WRONG_SECRET), new Redirect(new Hop(A, false)),
                new Failure(DhtException.Reason.OVERLOADED, "busy"));
    }

    @Test
    void everyMessageTypeSurvivesItsEncoding() {
        for (Message m : everyType()) {
            byte[] bytes = MessageCodec.encode(m);
            assertArrayEquals(bytes, MessageCodec.encode(MessageCodec.decode(bytes)), "round trip of " + m);
        }
        Store store = (Store) MessageCodec.decode(MessageCodec.encode(everyType().get(14)));
        assertEquals(new StoredValue(BYTES, 123, 4, HASH, true), store.copies().get(0).values().get(0));
    }

    @Test
    void truncatedUnknownOrTrailingBytesAreRefusedWhole() {
        for (Message m : everyType()) {
            byte[] bytes = MessageCodec.encode(m);
            for (int cut = 0; cut < bytes.length; cut++) {
                byte[] truncated = Arrays.copyOf(bytes, cut);
                assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(truncated), m + " cut at " + cut);
            }
            byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
            assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(longer), m + " with a trailing byte");
        }
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(new byte[] {1, 99}));
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(new byte[] {2, 1}));
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(new byte[] {1, 5, 127, 0, 0, 0}),
                "a list count beyond what the message holds");
    }
}
