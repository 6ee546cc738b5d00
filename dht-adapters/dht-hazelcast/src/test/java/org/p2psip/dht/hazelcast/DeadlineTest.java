package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.map.IMap;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.DhtException;

/** An operation the cluster does not answer in time fails with TIMEOUT at its deadline, not later, not never. */
class DeadlineTest {

    @Test
    void aReadOfAPartitionThatDoesNotAnswerFailsWithTimeout() throws Exception {
        var node = TestCluster.node("deadline-" + UUID.randomUUID(), "")
                .with(HazelcastOptions.OPERATION_TIMEOUT.name(), "300ms");
        try (HazelcastDht dht = HazelcastDht.start(node, Clock.systemUTC())) {
            String aor = "sip:busy@example.com";
            IMap<String, byte[]> map = dht.member().getMap(HazelcastOptions.MAP.defaultValue());
            var hold = new Hold();
            CompletionStage<Object> holding = map.submitToKey(aor, hold);
            try {
                assertTrue(hold.running(20), "the partition thread was not taken");
                CompletionStage<BindingSet> read = dht.get(aor);
                var failure = assertThrows(ExecutionException.class,
                        () -> read.toCompletableFuture().get(20, TimeUnit.SECONDS));
                var dhtFailure = assertInstanceOf(DhtException.class, failure.getCause());
                assertEquals(DhtException.Reason.TIMEOUT, dhtFailure.reason(), dhtFailure.toString());
                assertEquals(1L, dht.metrics().get("hazelcast.failures"));
            } finally {
                hold.release();
            }
            holding.toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }
}
