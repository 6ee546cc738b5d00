package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.Dht;
import org.p2psip.dht.contract.DhtContract;

/** The contract kit on three nodes started as the servlet starts them: TCP on loopback, JE on disk. */
class BambooTcpContractTest extends DhtContract {

    @TempDir
    Path dir;
    private final List<BambooDht> nodes = new ArrayList<>();

    @Override
    protected Dht createDht(Clock clock) {
        nodes.clear();
        for (int i = 0; i < 3; i++) {
            String bootstrap = nodes.isEmpty() ? "" : nodes.get(0).node().handle().address();
            nodes.add(BambooDht.start(config(i, bootstrap), clock, ADD_CONTACT));
        }
        nodes.forEach(n -> LocalOverlay.await(n.joined().toCompletableFuture()));
        LocalOverlay.eventually(Duration.ofSeconds(30), () -> nodes.stream().allMatch(
                n -> LocalOverlay.await(n.node().leafSetMembers().toCompletableFuture()).size() == 2),
                () -> "three TCP nodes did not find each other");
        track(nodes.get(2));
        return nodes.get(0);
    }

    @Override
    protected Dht anotherNode(Dht first) {
        return nodes.get(1);
    }

    private Config config(int i, String bootstrap) {
        return LocalOverlay.fastConfig()
                .with(NodeOptions.OVERLAY_ADDRESS.name(), "127.0.0.1:0")
                .with(NodeOptions.OVERLAY_BOOTSTRAP.name(), bootstrap)
                .with(NodeOptions.OVERLAY_SECRET.name(), "contract-secret")
                .with(NodeOptions.DATA_DIR.name(), dir.resolve("node-" + i).toString());
    }

    @Test
    void aNodeRefusesToStartWithoutTheOverlaySecretOrWithAnUnknownOption() {
        Config noSecret = config(9, "").with(NodeOptions.OVERLAY_SECRET.name(), "");
        assertThrows(IllegalArgumentException.class, () -> BambooDht.start(noSecret, clock));
        Config misspelt = config(9, "").with("p2psip.bamboo.leafset.sides", "8");
        assertThrows(IllegalArgumentException.class, () -> BambooDht.start(misspelt, clock));
    }
}
