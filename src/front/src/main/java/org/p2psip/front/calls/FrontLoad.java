package org.p2psip.front.calls;

import java.lang.management.ManagementFactory;

/**
 * The front's own utilisation: the CPU time its process used since the previous sample, over the
 * wall time between them and the cores it may use (its affinity: {@code taskset} narrows it).
 * Not thread-safe: the prober samples it.
 */
public final class FrontLoad {

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long lastCpuNanos = os.getProcessCpuTime();
    private long lastWallNanos = System.nanoTime();

    /** Utilisation since the previous call, 0 to 1 (NaN if the JVM cannot tell its CPU time). */
    public double sample() {
        long cpu = os.getProcessCpuTime();
        long wall = System.nanoTime();
        double used = cpu < 0 || wall == lastWallNanos ? Double.NaN
                : (double) (cpu - lastCpuNanos) / (wall - lastWallNanos) / Runtime.getRuntime().availableProcessors();
        lastCpuNanos = cpu;
        lastWallNanos = wall;
        return used;
    }
}
