package org.p2psip.simulator;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One-way delay between two simulated nodes, fixed per pair under a seed. Shaped like measured
 * Internet latencies (the King data set: a median round trip of about 80 ms and a long tail):
 * each node has an access delay, lognormal with a median of 5 ms, and each pair a core delay,
 * uniform between 10 and 60 ms; a frame takes the sum. Not thread-safe (the simulation has one).
 */
final class Latencies {

    private static final double ACCESS_MEDIAN_NANOS = 5e6;
    private static final double ACCESS_SIGMA = 0.8;
    private static final long CORE_MIN_NANOS = 10_000_000;
    private static final long CORE_SPAN_NANOS = 50_000_000;

    private final long seed;
    private final Map<String, Long> access = new HashMap<>();

    Latencies(long seed) {
        this.seed = seed;
    }

    long nanos(String from, String to) {
        int a = from.hashCode();
        int b = to.hashCode();
        long pair = mix(seed ^ ((long) Math.min(a, b) << 32 | (Math.max(a, b) & 0xffffffffL)));
        long core = CORE_MIN_NANOS + Math.floorMod(pair, CORE_SPAN_NANOS);
        return access(from) + access(to) + core;
    }

    private long access(String address) {
        return access.computeIfAbsent(address, a -> {
            // a seeded normal draw, the sum of 12 uniforms less 6, is all a lognormal needs here
            var draws = new SplittableRandom(mix(seed * 31 + a.hashCode()));
            double normal = -6;
            for (int i = 0; i < 12; i++) {
                normal += draws.nextDouble();
            }
            return (long) (ACCESS_MEDIAN_NANOS * Math.exp(ACCESS_SIGMA * normal));
        });
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
