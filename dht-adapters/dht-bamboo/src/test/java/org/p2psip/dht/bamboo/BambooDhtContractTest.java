package org.p2psip.dht.bamboo;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.dht.Dht;
import org.p2psip.dht.contract.DhtContract;

/** The contract kit on a three-node in-process overlay: what one node writes, another reads. */
class BambooDhtContractTest extends DhtContract {

    @TempDir
    Path dir;
    private LocalOverlay overlay;

    @Override
    protected Dht createDht(Clock clock) {
        overlay = new LocalOverlay(dir, clock, 3, LocalOverlay.fastConfig());
        for (int i = 0; i < 3; i++) {
            overlay.add();
        }
        overlay.awaitConverged(Duration.ofSeconds(30));
        return overlay.dht(overlay.nodes.get(0), overlay);
    }

    @Override
    protected Dht anotherNode(Dht first) {
        return overlay.dht(overlay.nodes.get(1), null);
    }
}
