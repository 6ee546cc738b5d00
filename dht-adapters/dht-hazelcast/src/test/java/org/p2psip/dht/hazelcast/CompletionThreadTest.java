package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.BindingSet;

/**
 * The servlet answers SIP requests on the thread that completes a Hazelcast operation, because
 * {@link HazelcastDht#completesOnWorkers} says it may: so that thread must be one of this node's
 * callback threads, never a Hazelcast partition or response thread.
 */
class CompletionThreadTest {

    @Test
    void aPutCompletesOnACallbackThreadOfThisNode() throws Exception {
        try (HazelcastDht dht = TestCluster.start("threads-" + UUID.randomUUID(), "", Clock.systemUTC())) {
            assertTrue(dht.completesOnWorkers());
            String aor = "sip:threads@example.com";
            var map = dht.member().<String, byte[]>getMap(HazelcastOptions.MAP.defaultValue());
            var hold = new Hold();
            var holding = map.submitToKey(aor, hold);
            assertTrue(hold.running(20), "the partition thread was not taken");
            var thread = new CompletableFuture<String>();
            BindingSet record = BindingSet.absent(aor).next(List.of(), System.currentTimeMillis() + 60_000);
            dht.putOrCurrent(record).whenComplete((stored, failure) -> thread.complete(Thread.currentThread().getName()));
            hold.release();
            holding.toCompletableFuture().get(20, TimeUnit.SECONDS);
            String name = thread.get(20, TimeUnit.SECONDS);
            assertTrue(name.startsWith("p2psip-hazelcast-") && name.contains("-callback-"), "completed on " + name);
        }
    }
}
