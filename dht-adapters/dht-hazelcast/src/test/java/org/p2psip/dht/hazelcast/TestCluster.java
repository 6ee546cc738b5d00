package org.p2psip.dht.hazelcast;

import org.p2psip.dht.contract.DhtContract;
import com.hazelcast.cluster.Address;
import java.time.Clock;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;

/** Members on loopback for tests: free ports, fast joins, one secret per cluster. */
final class TestCluster {

    private TestCluster() {
    }

    /** A node's configuration: listen on a free loopback port, join {@code members} (empty: start alone). */
    static Config node(String secret, String members) {
        return Config.empty()
                .with(NodeOptions.OVERLAY_ADDRESS.name(), "127.0.0.1:0")
                .with(NodeOptions.OVERLAY_MEMBERS.name(), members)
                .with(NodeOptions.OVERLAY_SECRET.name(), secret)
                .with(HazelcastOptions.WAIT_BEFORE_JOIN.name(), "0s")
                .with(HazelcastOptions.JOIN_TIMEOUT.name(), "1s")
                .with(HazelcastOptions.OPERATION_TIMEOUT.name(), "10s")
                .with(HazelcastOptions.SHUTDOWN_TIMEOUT.name(), "20s");
    }

    static HazelcastDht start(String secret, String members, Clock clock) {
        return HazelcastDht.start(node(secret, members), clock, DhtContract.ADD_CONTACT);
    }

    /** The {@code host:port} another member lists to join {@code dht}'s member. */
    static String address(HazelcastDht dht) {
        Address a = dht.member().getCluster().getLocalMember().getAddress();
        return a.getHost() + ":" + a.getPort();
    }
}
