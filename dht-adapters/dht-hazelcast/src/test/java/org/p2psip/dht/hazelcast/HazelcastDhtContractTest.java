package org.p2psip.dht.hazelcast;

import java.time.Clock;
import java.util.UUID;
import org.p2psip.dht.Dht;
import org.p2psip.dht.contract.DhtContract;

/** The contract kit against embedded members on loopback: one fresh cluster per test. */
class HazelcastDhtContractTest extends DhtContract {

    private final String secret = "contract-" + UUID.randomUUID();

    @Override
    protected Dht createDht(Clock clock) {
        return TestCluster.start(secret, "", clock);
    }

    @Override
    protected Dht anotherNode(Dht first) {
        return TestCluster.start(secret, TestCluster.address((HazelcastDht) first), clock);
    }
}
