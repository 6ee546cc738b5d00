package org.p2psip.simulator;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.p2psip.config.Config;
import org.p2psip.dht.bryan.BryanDht;
import org.p2psip.dht.ring.NodeThread;
import org.p2psip.testkit.SimulatedTime;

/** Bryan peers, each with a {@link SimulatedLink}, all on the simulation's loop. */
final class BryanBackend implements Backend {

    private final SimulatedTime time;
    private final Latencies latencies;
    private final Config config;
    private final Clock clock;
    private final NodeThread loop;
    private final Map<String, SimulatedLink> links = new HashMap<>();
    private final LongAdder sent = new LongAdder();

    BryanBackend(SimulatedTime time, Latencies latencies, Config config) {
        this.time = time;
        this.latencies = latencies;
        this.config = config;
        this.clock = time.clock();
        this.loop = new NodeThread(time, time::inEventLoop, time::nanos);
    }

    @Override
    public String name() {
        return "bryan";
    }

    @Override
    public Member start(String address, String bootstrap) {
        var link = new SimulatedLink(address, time, latencies, links, sent);
        links.put(address, link);
        BryanDht dht = BryanDht.start(link, config.with("p2psip.bryan.bootstrap", bootstrap), clock, loop);
        return new Member(address, dht, dht::crash);
    }

    @Override
    public long bytesSent() {
        return sent.sum();
    }

    @Override
    public void close() {
        links.clear();
    }
}
