package org.p2psip.simulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.stream.Stream;
import org.p2psip.config.Config;
import org.p2psip.dht.bamboo.BambooDht;
import org.p2psip.dht.bamboo.storage.SharedEnvironment;
import org.p2psip.overlay.InProcessNetwork;
import org.p2psip.overlay.OverlaySettings;
import org.p2psip.testkit.SimulatedTime;

/**
 * Bamboo nodes on in-process transports, their records in Berkeley DB JE: one environment in a
 * temporary folder that all nodes share, a database each (an environment per node would take more
 * files than a process may open). A crashed node's host vanishes: its peers time out on it.
 */
final class BambooBackend implements Backend {

    private final InProcessNetwork network;
    private final Config config;
    private final Clock clock;
    private final Path folder;
    private final SharedEnvironment storage;

    BambooBackend(SimulatedTime time, Latencies latencies, Config config, long seed) {
        this.network = new InProcessNetwork(time, time::nanos, seed);
        this.network.latency(latencies::nanos);
        this.config = config;
        this.clock = time.clock();
        try {
            this.folder = Files.createTempDirectory("simulate-bamboo-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a folder for Berkeley DB JE", e);
        }
        this.storage = SharedEnvironment.open(folder, config);
    }

    @Override
    public String name() {
        return "bamboo";
    }

    @Override
    public Member start(String address, String bootstrap) {
        Config own = config.with("p2psip.overlay.bootstrap", bootstrap);
        BambooDht dht = BambooDht.start(network.transport(address, OverlaySettings.from(own)), own, clock, storage);
        return new Member(address, dht, () -> {
            network.silence(address);
            dht.crash();
            storage.remove(address);
        });
    }

    @Override
    public long bytesSent() {
        return network.sentTotal();
    }

    @Override
    public void close() {
        storage.close();
        network.close();
        try (Stream<Path> files = Files.walk(folder)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind is no reason to fail a finished run
        }
    }
}
