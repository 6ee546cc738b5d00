package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;

/** The Hazelcast settings a node gets from its options, without starting a member. */
class MemberConfigTest {

    private final Config node = Config.empty()
            .with(NodeOptions.OVERLAY_ADDRESS.name(), "127.0.0.2:6071")
            .with(NodeOptions.OVERLAY_MEMBERS.name(), "127.0.0.1:6070, 127.0.0.2:6071")
            .with(NodeOptions.OVERLAY_BOOTSTRAP.name(), "127.0.0.3:6072")
            .with(NodeOptions.OVERLAY_SECRET.name(), "s3cret")
            .with(HazelcastOptions.BACKUP_COUNT.name(), "2");

    @Test
    void membersFindEachOtherOnlyThroughTheTcpIpListOfMembersAndBootstrap() {
        JoinConfig join = MemberConfig.from(node).getNetworkConfig().getJoin();
        assertFalse(join.getMulticastConfig().isEnabled(), "multicast must be off");
        assertFalse(join.getAutoDetectionConfig().isEnabled(), "auto-detection must be off");
        assertTrue(join.getTcpIpConfig().isEnabled());
        assertEquals(List.of("127.0.0.1:6070", "127.0.0.2:6071", "127.0.0.3:6072"), join.getTcpIpConfig().getMembers());
    }

    @Test
    void aMemberWithNobodyToJoinListsOnlyItself() {
        var alone = Config.empty().with(NodeOptions.OVERLAY_SECRET.name(), "s");
        assertEquals(List.of("127.0.0.1:6070"),
                MemberConfig.from(alone).getNetworkConfig().getJoin().getTcpIpConfig().getMembers());
    }

    @Test
    void theMemberListensOnExactlyTheOverlayAddressAndNeverCallsHome() {
        var member = MemberConfig.from(node);
        assertEquals(6071, member.getNetworkConfig().getPort());
        assertFalse(member.getNetworkConfig().isPortAutoIncrement());
        assertEquals("false", member.getProperty("hazelcast.socket.bind.any"));
        assertEquals("127.0.0.2", member.getProperty("hazelcast.local.localAddress"));
        assertEquals("false", member.getProperty("hazelcast.phone.home.enabled"));
        assertSame(MemberConfig.class.getClassLoader(), member.getClassLoader());
    }

    @Test
    void theMapKeepsTheConfiguredSynchronousBackupsAndReadsFromTheOwner() {
        MapConfig map = MemberConfig.from(node).getMapConfig(HazelcastOptions.MAP.defaultValue());
        assertEquals(2, map.getBackupCount());
        assertEquals(0, map.getAsyncBackupCount());
        assertFalse(map.isReadBackupData());
    }

    @Test
    void theClusterNameComesFromTheSecret() {
        assertEquals(ClusterName.derive("p2psip", "s3cret"), MemberConfig.from(node).getClusterName());
    }

    @Test
    void aMalformedOverlayAddressIsRefusedWithItsName() {
        var bad = node.with(NodeOptions.OVERLAY_ADDRESS.name(), "127.0.0.1");
        var failure = assertThrows(IllegalArgumentException.class, () -> MemberConfig.from(bad));
        assertTrue(failure.getMessage().contains(NodeOptions.OVERLAY_ADDRESS.name()), failure.getMessage());
    }
}
