package org.p2psip.simulator;

import java.time.Clock;
import org.p2psip.config.Config;
import org.p2psip.dht.chord.ChordDht;
import org.p2psip.overlay.InProcessNetwork;
import org.p2psip.overlay.OverlaySettings;
import org.p2psip.testkit.SimulatedTime;

/** Chord nodes, each on an in-process transport of one simulated network. */
final class ChordBackend implements Backend {

    private final InProcessNetwork network;
    private final Config config;
    private final Clock clock;

    ChordBackend(SimulatedTime time, Latencies latencies, Config config, long seed) {
        this.network = new InProcessNetwork(time, time::nanos, seed);
        this.network.latency(latencies::nanos);
        this.config = config;
        this.clock = time.clock();
    }

    @Override
    public String name() {
        return "chord";
    }

    @Override
    public Member start(String address, String bootstrap) {
        Config own = config.with("p2psip.overlay.bootstrap", bootstrap);
        ChordDht dht = ChordDht.start(network.transport(address, OverlaySettings.from(own)), own, clock);
        return new Member(address, dht, dht::crash);
    }

    @Override
    public long bytesSent() {
        return network.sentTotal();
    }

    @Override
    public void close() {
        network.close();
    }
}
