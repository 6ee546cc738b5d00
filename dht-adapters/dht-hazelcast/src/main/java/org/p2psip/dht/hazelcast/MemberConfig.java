package org.p2psip.dht.hazelcast;

import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.p2psip.config.Config;
import org.p2psip.dht.OwnerRules;
import org.p2psip.config.HostPort;
import org.p2psip.config.NodeOptions;

/**
 * Turns a node's configuration into the Hazelcast configuration of its embedded member. Every
 * Hazelcast setting this backend fixes is here, with the reason; the README lists them.
 * Stateless; thread-safe.
 */
final class MemberConfig {

    private MemberConfig() {
    }

    static com.hazelcast.config.Config from(Config node) {
        return from(node, OwnerRules.NONE);
    }

    /** @param ownerRules the rules this member applies to the changes of the partitions it owns */
    static com.hazelcast.config.Config from(Config node, OwnerRules ownerRules) {
        HostPort self = HostPort.from(node, NodeOptions.OVERLAY_ADDRESS);
        var member = new com.hazelcast.config.Config();
        member.setClusterName(ClusterName.derive(node.get(HazelcastOptions.CLUSTER_NAME), node.get(NodeOptions.OVERLAY_SECRET)));
        // Tomcat gives a webapp its own class loader; Hazelcast must resolve this module's classes through it.
        member.setClassLoader(MemberConfig.class.getClassLoader());
        member.getSerializationConfig().addDataSerializableFactory(Processors.FACTORY_ID, new Processors(ownerRules));
        member.getJetConfig().setEnabled(false);
        network(member.getNetworkConfig(), self, node);
        member.addMapConfig(map(node));
        properties(member, self, node);
        return member;
    }

    private static void network(NetworkConfig network, HostPort self, Config node) {
        network.setPort(self.port()).setPortAutoIncrement(false).setPortCount(1);
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true)
                .setConnectionTimeoutSeconds(wholeSeconds(node.get(HazelcastOptions.JOIN_TIMEOUT), 1))
                .setMembers(List.copyOf(members(self, node)));
    }

    /** The deployment's member list and bootstrap node; this member alone if neither is given. */
    static Set<String> members(HostPort self, Config node) {
        Set<String> members = new LinkedHashSet<>(NodeOptions.list(node.get(NodeOptions.OVERLAY_MEMBERS)));
        members.addAll(NodeOptions.list(node.get(NodeOptions.OVERLAY_BOOTSTRAP)));
        if (members.isEmpty()) {
            members.add(self.toString());
        }
        return members;
    }

    private static MapConfig map(Config node) {
        return new MapConfig(node.get(HazelcastOptions.MAP))
                .setBackupCount(node.get(HazelcastOptions.BACKUP_COUNT))
                .setAsyncBackupCount(node.get(HazelcastOptions.ASYNC_BACKUP_COUNT))
                // Values are already the codec's bytes: keep them as bytes, never as objects.
                .setInMemoryFormat(InMemoryFormat.BINARY)
                // Reads go to the partition's owner, so a read sees every acknowledged write.
                .setReadBackupData(false);
    }

    private static void properties(com.hazelcast.config.Config member, HostPort self, Config node) {
        member.setProperty("hazelcast.phone.home.enabled", "false");
        // Listen on the configured address only, not on every interface.
        member.setProperty("hazelcast.socket.bind.any", "false");
        member.setProperty("hazelcast.local.localAddress", self.host());
        member.setProperty("hazelcast.logging.type", "jdk");
        // A SIGTERM to the node's JVM hands this member's partitions over before it exits.
        member.setProperty("hazelcast.shutdownhook.policy", "GRACEFUL");
        member.setProperty("hazelcast.wait.seconds.before.join",
                String.valueOf(wholeSeconds(node.get(HazelcastOptions.WAIT_BEFORE_JOIN), 0)));
        member.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        member.setProperty("hazelcast.max.no.heartbeat.seconds",
                String.valueOf(wholeSeconds(node.get(HazelcastOptions.HEARTBEAT_TIMEOUT), 2)));
        String merge = String.valueOf(wholeSeconds(node.get(HazelcastOptions.MERGE_INTERVAL), 1));
        member.setProperty("hazelcast.merge.first.run.delay.seconds", merge);
        member.setProperty("hazelcast.merge.next.run.delay.seconds", merge);
        member.setProperty("hazelcast.graceful.shutdown.max.wait",
                String.valueOf(wholeSeconds(node.get(HazelcastOptions.SHUTDOWN_TIMEOUT), 1)));
        // Hazelcast gives up on an invocation when our own deadline has failed it anyway.
        member.setProperty("hazelcast.operation.call.timeout.millis",
                String.valueOf(Math.max(1000, node.get(HazelcastOptions.OPERATION_TIMEOUT).toMillis())));
        member.setProperty("hazelcast.partition.count", String.valueOf(node.get(HazelcastOptions.PARTITION_COUNT)));
    }

    private static int wholeSeconds(Duration d, int atLeast) {
        return (int) Math.max(atLeast, (d.toMillis() + 999) / 1000);
    }
}
