package org.p2psip.front.relay;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.p2psip.front.calls.ExecutorTimers;
import org.p2psip.front.calls.KeptCalls;
import org.p2psip.front.calls.StateSplit;
import org.p2psip.front.nodes.AffinityTable;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.nodes.Nodes;
import org.p2psip.front.policies.Policies;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.Backlog;
import org.p2psip.front.wire.Listeners;
import org.p2psip.front.wire.Destination;
import org.p2psip.front.wire.SipParser;

/**
 * The front's CPU per call, in one thread: a whole call (INVITE, its answers, ACK, BYE and its 200)
 * through the front's forwarder as its UDP loop hands it datagrams (the lazy path first, JAIN-SIP's
 * parse for what that leaves), either forwarded to a node ({@code stateless}) or kept at the front
 * ({@code stateful}: the node asked for the contacts with a redirect, the callee rung by the front).
 * The node, the caller and the callee are played by {@link Peers}, whose few microseconds a message
 * are in the figure: the front's own cost is at most it. Two figures: JMH's time per call, and
 * {@code cpuMicrosPerCall}, the benchmark thread's CPU time per call ({@link Cpu}), which is the one
 * to read on a machine whose cores other processes share (the time includes waiting for a core).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CallCost {

    static final InetSocketAddress FRONT = new InetSocketAddress("127.0.0.1", 5060);
    static final InetSocketAddress NODE = new InetSocketAddress("127.0.0.1", 5070);

    @Param({"stateless", "stateful"})
    public String mode;

    private ScheduledExecutorService timers;
    private Recorder outlet;
    private Inbound inbound;
    private Peers peers;
    private long call;

    @Setup
    public void setUp() {
        timers = Executors.newSingleThreadScheduledExecutor(r -> {
            var thread = new Thread(r, "call-cost-timers");
            thread.setDaemon(true);
            return thread;
        });
        outlet = new Recorder();
        var nodes = new Nodes(List.of(NODE));
        nodes.probeAnswered(Nodes.probeCallId(nodes.all().get(0)), 200);
        var listeners = new Listeners(FRONT, 0);
        var stats = new FrontStats();
        var kept = new KeptCalls(listeners, outlet, new ExecutorTimers(timers), Runnable::run, stats, nodes, 5,
                30_000, 180_000, 1_000_000);
        var forwarder = new Forwarder(listeners, nodes, Policies.named("rr", 1.75),
                new AffinityTable(TimeUnit.SECONDS.toNanos(32), 1_000_000), new Transactions(1_000_000), outlet, stats,
                timers, kept, mode.equals("stateful") ? new StateSplit(1.0) : null, new Backlog());
        inbound = new Inbound(forwarder, stats);
        peers = new Peers(outlet, this::deliver);
        peers.check(mode.equals("stateful"), call++); // a call that does not go through as it should stops the run
    }

    @TearDown
    public void tearDown() {
        timers.shutdownNow();
    }

    @Benchmark
    public void call(Cpu cpu) {
        peers.call(mode.equals("stateful"), call++);
        cpu.calls++;
    }

    /** The benchmark thread's CPU time per call over an iteration, in microseconds. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Cpu {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        long calls;
        private long startNanos;
        public double cpuMicrosPerCall;

        @Setup(Level.Iteration)
        public void start() {
            calls = 0;
            cpuMicrosPerCall = 0;
            startNanos = THREADS.getCurrentThreadCpuTime();
        }

        @TearDown(Level.Iteration)
        public void end() {
            cpuMicrosPerCall = calls == 0 ? 0 : (THREADS.getCurrentThreadCpuTime() - startNanos) / 1000.0 / calls;
        }
    }

    /** A datagram from {@code source}, as the front's UDP handler gives it to the forwarder. */
    private void deliver(byte[] bytes, InetSocketAddress source) {
        if (inbound.acceptRaw(bytes, source, Destination.UDP)) {
            return;
        }
        try {
            inbound.accept(SipParser.parse(bytes, true), source, Destination.UDP);
        } catch (java.text.ParseException e) {
            throw new IllegalStateException("the front could not parse what a peer sent: " + new String(bytes), e);
        }
    }

    /** What the front sent, kept until a peer takes it. */
    static final class Recorder implements Destination {
        final List<byte[]> toNode = new ArrayList<>();
        final List<byte[]> toClient = new ArrayList<>();
        final List<InetSocketAddress> clientAddresses = new ArrayList<>();

        @Override
        public void toNode(Node node, byte[] message) {
            toNode.add(message);
        }

        @Override
        public void toClient(long connection, InetSocketAddress address, byte[] message) {
            toClient.add(message);
            clientAddresses.add(address);
        }

        @Override
        public String transport(long connection) {
            return "UDP";
        }

        @Override
        public boolean open(long connection) {
            return false;
        }

        void clear() {
            toNode.clear();
            toClient.clear();
            clientAddresses.clear();
        }
    }
}
