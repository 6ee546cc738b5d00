package org.p2psip.overlay;

import io.netty.channel.DefaultEventLoopGroup;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Many nodes in one JVM, for tests and for simulating overlays larger than a machine holds:
 * frames are handed from one node's event loop to another's without sockets or encoding. The
 * nodes share a fixed group of event loop threads; each node stays on one of them.
 *
 * <p>Faults can be injected: a silenced node drops every frame sent to it or by it (a hung or
 * partitioned peer: requests time out) until it is unsilenced, a departed one is gone (requests
 * fail UNREACHABLE at once, as a refused connection does), and a loss rate and a latency apply to
 * every frame. Thread-safe.
 */
public final class InProcessNetwork implements AutoCloseable {

    private final DefaultEventLoopGroup loops;
    private final Map<String, InProcessTransport> nodes = new ConcurrentHashMap<>();
    private final Set<String> silenced = ConcurrentHashMap.newKeySet();
    private volatile double lossRate;
    private volatile long latencyMillis;

    /** A network whose nodes share {@code threads} event loop threads. */
    public InProcessNetwork(int threads) {
        this.loops = new DefaultEventLoopGroup(threads);
    }

    /** A node at {@code address}, reachable by the others once created. */
    public InProcessTransport transport(String address, OverlaySettings settings) {
        var transport = new InProcessTransport(address, settings, loops.next(), this);
        if (nodes.putIfAbsent(address, transport) != null) {
            throw new IllegalArgumentException(address + " is taken in this network");
        }
        return transport;
    }

    /** Every frame to {@code address} is dropped from now on: its peers see timeouts. */
    public void silence(String address) {
        silenced.add(address);
    }

    /** Frames to and from {@code address} pass again: the partition heals. */
    public void unsilence(String address) {
        silenced.remove(address);
    }

    /** Frames are lost with this probability (0..1). */
    public void lossRate(double rate) {
        this.lossRate = rate;
    }

    /** Every frame takes this long to arrive. */
    public void latency(Duration latency) {
        this.latencyMillis = latency.toMillis();
    }

    void leave(String address, InProcessTransport transport) {
        nodes.remove(address, transport);
    }

    /** Carries {@code frame} to {@code to}; false if no such node is in the network. */
    boolean deliver(String to, Frame frame, java.util.function.Consumer<InProcessTransport> onArrival) {
        InProcessTransport target = nodes.get(to);
        if (target == null) {
            return false;
        }
        if (silenced.contains(to) || silenced.contains(frame.sender())
                || (lossRate > 0 && ThreadLocalRandom.current().nextDouble() < lossRate)) {
            return true; // gone without a trace, as on a real network
        }
        Runnable arrive = () -> onArrival.accept(target);
        try {
            if (latencyMillis > 0) {
                target.executor().schedule(arrive, latencyMillis, TimeUnit.MILLISECONDS);
            } else {
                target.executor().execute(arrive);
            }
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return false;
        }
        return true;
    }

    @Override
    public void close() {
        loops.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
}
