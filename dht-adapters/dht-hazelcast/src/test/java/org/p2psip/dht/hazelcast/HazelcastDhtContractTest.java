package org.p2psip.dht.hazelcast;

import java.time.Clock;
import java.util.UUID;
import org.p2psip.dht.Dht;
import org.p2psip.dht.contract.DhtContract;

/**
 * The contract kit against embedded members on loopback: one fresh cluster per test, and one
 * second member of it for every {@code anotherNode} of that test (each new member would start,
 * join and take partitions: ten of them in one test took 20 s).
 */
class HazelcastDhtContractTest extends DhtContract {

    private final String secret = "contract-" + UUID.randomUUID();
    /** The test's second member; JUnit makes a new instance of this class for each test. */
    private Dht second;

    @Override
    protected Dht createDht(Clock clock) {
        return TestCluster.start(secret, "", clock);
    }

    @Override
    protected Dht anotherNode(Dht first) {
        if (second == null) {
            second = TestCluster.start(secret, TestCluster.address((HazelcastDht) first), clock);
        }
        return second;
    }
}
