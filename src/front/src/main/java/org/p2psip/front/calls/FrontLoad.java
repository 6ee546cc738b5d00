package org.p2psip.front.calls;

import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * The front's load as the dynamic state split reads it: the larger of two utilisations since the
 * previous sample.
 * <ul>
 * <li>The process's CPU time over the wall time and the cores it may use (its affinity:
 * {@code taskset} narrows it). This is the load where the front has cores of its own.
 * <li>The UDP loop's busy share: the wall time it spent reading and forwarding, waiting for a core
 * included, over the wall time. Where the front shares its cores with the nodes, its process
 * never uses half of them however saturated the machine is (three busy processes on two cores
 * get two thirds of a core each), so the CPU share alone never says "busy"; but a loop that waits
 * for a core between its reads is busy for longer, and one that cannot keep up is busy all the
 * time, so its busy share reaches 1 when the front is what holds the chain back.
 * </ul>
 * Not thread-safe: the prober samples it.
 */
public final class FrontLoad {

    private final LongSupplier cpuNanos;
    private final LongSupplier loopBusyNanos;
    private final LongSupplier clock;
    private final int cores;
    private long lastCpu;
    private long lastBusy;
    private long lastWall;

    /** The load of this process, whose UDP loop's busy time {@code loopBusyNanos} gives. */
    public FrontLoad(LongSupplier loopBusyNanos) {
        this(processCpu(), loopBusyNanos, System::nanoTime, Runtime.getRuntime().availableProcessors());
    }

    FrontLoad(LongSupplier cpuNanos, LongSupplier loopBusyNanos, LongSupplier clock, int cores) {
        this.cpuNanos = cpuNanos;
        this.loopBusyNanos = loopBusyNanos;
        this.clock = clock;
        this.cores = cores;
        this.lastCpu = cpuNanos.getAsLong();
        this.lastBusy = loopBusyNanos.getAsLong();
        this.lastWall = clock.getAsLong();
    }

    /** The load since the previous call, 0 idle to 1 saturated (NaN when no time passed). */
    public double sample() {
        long cpu = cpuNanos.getAsLong();
        long busy = loopBusyNanos.getAsLong();
        long wall = clock.getAsLong();
        long elapsed = wall - lastWall;
        double cpuShare = cpu < 0 || lastCpu < 0 || elapsed <= 0 ? Double.NaN
                : (double) (cpu - lastCpu) / elapsed / cores;
        double busyShare = elapsed <= 0 ? Double.NaN : (double) (busy - lastBusy) / elapsed;
        lastCpu = cpu;
        lastBusy = busy;
        lastWall = wall;
        if (Double.isNaN(cpuShare)) {
            return busyShare; // a JVM that cannot tell its CPU time: the loop's share alone
        }
        return Math.max(cpuShare, busyShare);
    }

    private static LongSupplier processCpu() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return os::getProcessCpuTime;
    }
}
