package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;

/** The shared secret decides who joins: the cluster name is derived from it. */
class SecretTest {

    private final Clock clock = Clock.systemUTC();
    private final List<HazelcastDht> members = new ArrayList<>();

    @AfterEach
    void closeAll() {
        members.forEach(HazelcastDht::close);
    }

    @Test
    void aMemberWithAnotherSecretIsNotAdmittedAndSeesNoneOfTheBindings() throws Exception {
        HazelcastDht a = start("right-" + UUID.randomUUID(), "");
        String aor = "sip:alice@example.com";
        var binding = new Binding(aor, "sip:alice@10.0.0.1", clock.millis() + 3_600_000, 1000, "c", 1, List.of(), "", 0);
        assertTrue(a.put(new BindingSet(aor, 0, clock.millis() + 86_400_000, List.of(binding)))
                .toCompletableFuture().get(20, TimeUnit.SECONDS));

        // start() returns once the join attempt is over: admitted, or alone.
        HazelcastDht stranger = start("wrong-" + UUID.randomUUID(), TestCluster.address(a));
        assertEquals(1, a.member().getCluster().getMembers().size(), "the cluster admitted a member without its secret");
        assertEquals(1, stranger.member().getCluster().getMembers().size(), "the stranger joined the cluster");
        assertFalse(stranger.get(aor).toCompletableFuture().get(20, TimeUnit.SECONDS).exists(),
                "a member without the secret read a binding of the cluster");
    }

    @Test
    void aMemberWithTheSecretIsAdmitted() {
        String secret = "same-" + UUID.randomUUID();
        HazelcastDht a = start(secret, "");
        HazelcastDht b = start(secret, TestCluster.address(a));
        assertEquals(2, b.member().getCluster().getMembers().size());
    }

    @Test
    void aMemberRefusesToStartWithoutASecret() {
        var noSecret = TestCluster.node("", "").with(NodeOptions.OVERLAY_SECRET.name(), "");
        var failure = assertThrows(IllegalArgumentException.class, () -> HazelcastDht.start(noSecret, clock));
        assertTrue(failure.getMessage().contains(NodeOptions.OVERLAY_SECRET.name()), failure.getMessage());
    }

    @Test
    void theClusterNameDependsOnTheSecretAndDoesNotShowIt() {
        String name = ClusterName.derive("p2psip", "s3cret");
        assertEquals(name, ClusterName.derive("p2psip", "s3cret"), "every member derives the same name");
        assertNotEquals(name, ClusterName.derive("p2psip", "s3creT"));
        assertNotEquals(name, ClusterName.derive("other", "s3cret"));
        assertTrue(name.matches("p2psip-[0-9a-f]{32}"), name);
        assertFalse(name.contains("s3cret"));
    }

    private HazelcastDht start(String secret, String memberList) {
        HazelcastDht dht = TestCluster.start(secret, memberList, clock);
        members.add(dht);
        return dht;
    }
}
