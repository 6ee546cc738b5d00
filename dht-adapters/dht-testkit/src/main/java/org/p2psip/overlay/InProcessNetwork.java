package org.p2psip.overlay;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Many nodes in one JVM, for tests and for simulating overlays larger than a machine holds:
 * frames are handed from one node's event loop to another's without sockets or encoding. The
 * nodes share a fixed group of event loop threads; each node stays on one of them.
 *
 * <p>Faults can be injected: a silenced node drops every frame sent to it or by it (a hung or
 * partitioned peer: requests time out) until it is unsilenced, a departed one is gone (requests
 * fail UNREACHABLE at once, as a refused connection does), and a loss rate and a latency apply to
 * every frame. Thread-safe.
 *
 * <p>For a simulation, every node runs on one given executor in virtual time ({@link
 * #InProcessNetwork(EventExecutor, LongSupplier, long)}): frames then take a latency drawn per
 * pair of nodes, are lost by a seeded draw, and each node's bytes sent and received are counted
 * as a TCP connection would carry them.
 */
public final class InProcessNetwork implements AutoCloseable {

    /**
     * What a TCP/IP connection adds to a frame's payload, for a frame that travels alone: the
     * frame's header and length prefix, the length prefix and MAC of the batch it is the only frame
     * of, and the IP and TCP headers of its segment (40 bytes; one segment per frame). The
     * connection's handshake, once per connection, is not counted.
     */
    public static final int FRAME_OVERHEAD_BYTES = 4 + FrameCodec.MIN_LENGTH + 4 + BatchMac.BYTES + 40;

    private final DefaultEventLoopGroup loops;
    private final Supplier<EventExecutor> nextLoop;
    private final LongSupplier nanos;
    private final Map<String, InProcessTransport> nodes = new ConcurrentHashMap<>();
    private final Map<String, Traffic> traffic = new ConcurrentHashMap<>();
    private final Set<String> silenced = ConcurrentHashMap.newKeySet();
    private final Random draws;
    private final LongAdder sentTotal = new LongAdder();
    private volatile double lossRate;
    private volatile long latencyMillis;
    private volatile Latency pairLatency;

    /** How long a frame takes from one node to another. */
    @FunctionalInterface
    public interface Latency {
        long nanos(String from, String to);
    }

    /** Bytes a node sent and received, frames with their overhead. */
    public static final class Traffic {
        private final LongAdder sent = new LongAdder();
        private final LongAdder received = new LongAdder();

        public long sent() {
            return sent.sum();
        }

        public long received() {
            return received.sum();
        }
    }

    /** A network whose nodes share {@code threads} event loop threads. */
    public InProcessNetwork(int threads) {
        this.loops = new DefaultEventLoopGroup(threads);
        this.nextLoop = loops::next;
        this.nanos = System::nanoTime;
        this.draws = null;
    }

    /**
     * A simulated network: every node runs on {@code loop}, whose clock {@code nanos} reads, and
     * losses are drawn from {@code seed}, so that one thread driving the loop gets the same run
     * from the same seed.
     */
    public InProcessNetwork(EventExecutor loop, LongSupplier nanos, long seed) {
        this.loops = null;
        this.nextLoop = () -> loop;
        this.nanos = nanos;
        this.draws = new Random(seed);
    }

    /** A node at {@code address}, reachable by the others once created. */
    public InProcessTransport transport(String address, OverlaySettings settings) {
        var transport = new InProcessTransport(address, settings, nextLoop.get(), this);
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

    /** Every frame takes as long as {@code latency} says for its pair of nodes. */
    public void latency(Latency latency) {
        this.pairLatency = latency;
    }

    /** The bytes every node sent so far, lost frames included. */
    public long sentTotal() {
        return sentTotal.sum();
    }

    /** The bytes {@code address} sent and received so far (zero for a node never seen). */
    public Traffic traffic(String address) {
        return traffic.computeIfAbsent(address, a -> new Traffic());
    }

    long nanoTime() {
        return nanos.getAsLong();
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
        int bytes = frame.payload().length + FRAME_OVERHEAD_BYTES;
        traffic(frame.sender()).sent.add(bytes);
        sentTotal.add(bytes);
        if (silenced.contains(to) || silenced.contains(frame.sender()) || lost()) {
            return true; // gone without a trace, as on a real network
        }
        traffic(to).received.add(bytes);
        Runnable arrive = () -> onArrival.accept(target);
        Latency perPair = pairLatency;
        long delayNanos = perPair != null ? perPair.nanos(frame.sender(), to) : latencyMillis * 1_000_000;
        try {
            if (delayNanos > 0) {
                target.executor().schedule(arrive, delayNanos, TimeUnit.NANOSECONDS);
            } else {
                target.executor().execute(arrive);
            }
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return false;
        }
        return true;
    }

    private boolean lost() {
        double rate = lossRate;
        if (rate <= 0) {
            return false;
        }
        return (draws != null ? draws.nextDouble() : ThreadLocalRandom.current().nextDouble()) < rate;
    }

    @Override
    public void close() {
        if (loops == null) {
            return; // the simulation's loop belongs to whoever drives it
        }
        loops.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
}
