package org.p2psip.simulator;

import java.util.SplittableRandom;

/**
 * Session times of nodes: how long a node lives before it crashes, drawn with a given median.
 * Exponential (memoryless, as most DHT studies) or Pareto with shape 2 (heavy-tailed: many short
 * sessions and a few very long ones, as measured in deployed peer-to-peer systems).
 */
final class Churn {

    private static final double PARETO_SHAPE = 2;

    private final String model;
    private final double medianNanos;
    private final SplittableRandom random;

    Churn(String model, double medianMinutes, SplittableRandom random) {
        this.model = model;
        this.medianNanos = medianMinutes * 60e9;
        this.random = random;
    }

    boolean on() {
        return medianNanos > 0;
    }

    long sessionNanos() {
        double u = 1 - random.nextDouble(); // in (0, 1]
        if (model.equals("pareto")) {
            double scale = medianNanos / Math.pow(2, 1 / PARETO_SHAPE);
            return (long) (scale / Math.pow(u, 1 / PARETO_SHAPE));
        }
        return (long) (-Math.log(u) * medianNanos / Math.log(2));
    }
}
