package org.p2psip.front.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The controller against a simulated chain, one observation per simulated second: a front and N
 * nodes whose loads follow from the offered calls and the share the front keeps, plus noise.
 */
class StateSplitTest {

    /**
     * The plant. Per call the front costs 20 µs forwarding statelessly and 60 µs proxying
     * statefully (three times as much); a node costs 90 µs proxying statefully and 30 µs answering
     * a redirect. Each side also has a load that does not depend on the calls (the nodes' DHT
     * upkeep and registrations, the front's probes), so the point of equal load moves with the
     * rate. Each process has one CPU; the nodes share the calls evenly. Loads are utilisations,
     * noisy and capped at 1.2 as a measured one would be.
     */
    private static final class Chain {
        static final double FRONT_STATELESS = 20e-6;
        static final double FRONT_STATEFUL = 60e-6;
        static final double NODE_STATEFUL = 90e-6;
        static final double NODE_REDIRECT = 30e-6;
        static final double FRONT_BACKGROUND = 0.05;
        static final double NODE_BACKGROUND = 0.4;
        static final double CAP = 1.2;

        final Random random;
        final double noise;
        double calls;
        int nodes = 2;
        /** The share after each observation, in order. */
        final List<Double> trajectory = new ArrayList<>();

        Chain(double calls, double noise, long seed) {
            this.calls = calls;
            this.noise = noise;
            this.random = new Random(seed);
        }

        double frontLoad(double p) {
            return FRONT_BACKGROUND + calls * (p * FRONT_STATEFUL + (1 - p) * FRONT_STATELESS);
        }

        double nodeLoad(double p) {
            return NODE_BACKGROUND + calls * (p * NODE_REDIRECT + (1 - p) * NODE_STATEFUL) / nodes;
        }

        /** The share at which the front and the busiest node are equally loaded, within [0, 1]. */
        double equalPoint() {
            double atZero = nodeLoad(0) - frontLoad(0);
            double slope = (frontLoad(1) - frontLoad(0)) - (nodeLoad(1) - nodeLoad(0));
            return Math.max(0, Math.min(1, atZero / slope));
        }

        void run(StateSplit split, int seconds) {
            for (int i = 0; i < seconds; i++) {
                double p = split.fraction();
                split.observe(measured(frontLoad(p)), measured(nodeLoad(p)));
                trajectory.add(split.fraction());
            }
        }

        private double measured(double load) {
            return Math.max(0, Math.min(CAP, load + noise * random.nextGaussian()));
        }
    }

    /** The first second from which the share stays within {@code tolerance} of {@code target} to the end. */
    private static int settledAt(List<Double> shares, double target, double tolerance) {
        int at = shares.size();
        for (int i = shares.size() - 1; i >= 0 && Math.abs(shares.get(i) - target) <= tolerance; i--) {
            at = i;
        }
        return at;
    }

    private static void assertSettlesWithin(int seconds, List<Double> phase, double target, String what) {
        int at = settledAt(phase, target, 0.05);
        assertTrue(at < seconds, what + ": expected within 0.05 of " + round(target) + " from second " + seconds
                + " on, settled at second " + at + "; shares " + rounded(phase.subList(0, Math.min(40, phase.size()))));
    }

    /** How often consecutive moves larger than 0.01 change direction. */
    private static int reversals(List<Double> shares) {
        int count = 0;
        int last = 0;
        for (int i = 1; i < shares.size(); i++) {
            double move = shares.get(i) - shares.get(i - 1);
            if (Math.abs(move) > 0.01) {
                int direction = move > 0 ? 1 : -1;
                if (last != 0 && direction != last) {
                    count++;
                }
                last = direction;
            }
        }
        return count;
    }

    private static double range(List<Double> shares) {
        return shares.stream().mapToDouble(Double::doubleValue).max().orElse(0)
                - shares.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    }

    private static String round(double value) {
        return String.format("%.3f", value);
    }

    private static List<String> rounded(List<Double> shares) {
        return shares.stream().map(StateSplitTest::round).toList();
    }

    @Test
    void fromNoStateAtTheFrontTheShareReachesTheEqualLoadPointWithinThirtySeconds() {
        for (long seed = 1; seed <= 10; seed++) {
            var chain = new Chain(20_000, 0.03, seed);
            assertTrue(chain.nodeLoad(0) > 1 && chain.frontLoad(0) < 0.5, "the nodes saturate first");
            chain.run(new StateSplit(0), 120);
            assertSettlesWithin(30, chain.trajectory, chain.equalPoint(), "seed " + seed);
        }
    }

    @Test
    void fromAllStateAtTheFrontTheShareComesDownWhenTheFrontSaturatesFirst() {
        for (long seed = 1; seed <= 10; seed++) {
            var chain = new Chain(20_000, 0.03, seed);
            assertTrue(chain.frontLoad(1) > 1 && chain.nodeLoad(1) < chain.frontLoad(1), "the front saturates first");
            chain.run(new StateSplit(1), 120);
            assertSettlesWithin(30, chain.trajectory, chain.equalPoint(), "seed " + seed);
        }
    }

    @Test
    void afterAStepUpAndAStepDownInOfferedCallsTheShareSettlesAgainWithinThirtySeconds() {
        for (long seed = 1; seed <= 10; seed++) {
            var chain = new Chain(12_000, 0.03, seed);
            var split = new StateSplit(0);
            chain.run(split, 120);
            double low = chain.equalPoint();
            assertSettlesWithin(30, chain.trajectory, low, "seed " + seed + ", first settling");

            chain.calls = 20_000;
            double high = chain.equalPoint();
            assertTrue(low - high > 0.15, "the step moves the point: " + round(low) + " -> " + round(high));
            chain.run(split, 120);
            assertSettlesWithin(30, chain.trajectory.subList(120, 240), high, "seed " + seed + ", step up");

            chain.calls = 12_000;
            chain.run(split, 120);
            assertSettlesWithin(30, chain.trajectory.subList(240, 360), low, "seed " + seed + ", step down");
        }
    }

    @Test
    void whenANodeLeavesTheFrontTakesMoreStateWithinThirtySeconds() {
        for (long seed = 1; seed <= 10; seed++) {
            var chain = new Chain(20_000, 0.03, seed);
            chain.nodes = 3;
            var split = new StateSplit(0);
            chain.run(split, 120);
            double three = chain.equalPoint();
            assertSettlesWithin(30, chain.trajectory, three, "seed " + seed + ", three nodes");
            chain.nodes = 2;
            assertTrue(chain.equalPoint() - three > 0.1, "two nodes need more help from the front");
            chain.run(split, 120);
            assertSettlesWithin(30, chain.trajectory.subList(120, 240), chain.equalPoint(), "seed " + seed + ", two nodes");
        }
    }

    @Test
    void onceSettledTheShareStaysInANarrowBandAndRarelyTurns() {
        for (long seed = 1; seed <= 10; seed++) {
            var chain = new Chain(20_000, 0.03, seed);
            chain.run(new StateSplit(0), 180);
            List<Double> steady = chain.trajectory.subList(120, 180);
            assertTrue(range(steady) < 0.1, "seed " + seed + ": range " + round(range(steady)) + " over the last 60 s");
            assertTrue(reversals(steady) <= 4, "seed " + seed + ": " + reversals(steady) + " reversals over the last 60 s");
        }
    }

    @Test
    void repeatedReversalsHalveTheStepsUntilTheSwingDiesOut() {
        var split = new StateSplit(0.5);
        var moves = new ArrayList<Double>();
        for (int swing = 0; swing < 12; swing++) {
            boolean frontBusier = swing % 2 == 0;
            for (int second = 0; second < 4; second++) {
                double before = split.fraction();
                split.observe(frontBusier ? 0.9 : 0.6, frontBusier ? 0.6 : 0.9);
                moves.add(Math.abs(split.fraction() - before));
            }
        }
        // four seconds a way is at most three moves after the turn: 1.15^3 earns back less than the halving
        assertTrue(split.damping() < 0.1, "the damping fell to its floor, not " + split.damping());
        double first = moves.subList(0, 8).stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        double last = moves.subList(40, 48).stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        assertTrue(last < first / 4, "the swings shrink: largest move " + round(first) + " at first, " + round(last) + " at last");
    }

    @Test
    void whileBothSidesAreLightlyLoadedTheShareDoesNotMove() {
        for (double start : new double[] {0, 0.3, 1}) {
            var chain = new Chain(1_000, 0.03, 7);
            assertTrue(chain.frontLoad(start) < 0.5 && chain.nodeLoad(start) < 0.5);
            var split = new StateSplit(start);
            chain.run(split, 600);
            assertEquals(start, split.fraction(), "the share stays where it was");
        }
    }

    /**
     * The chain of the other tests on one machine of two cores that the front and both nodes
     * share, at 20,000 calls/s: the machine is saturated, and no process gets more than the part
     * of the cores a runnable process gets among three, two thirds of a core. As CPU shares of the
     * two cores each may use, the loads stay below a half and never say "busy". As the front's
     * loop busy share ({@link FrontLoad}) and the nodes' queue waits (the front's {@code NodeLoad}),
     * a process reads its demand over that two thirds, up to 1 once it falls behind: the nodes read
     * 1, the front less, so the front takes calls until its own loop is busy all the time too. There
     * both read 1 and nothing moves: a signal that tops out at "behind" cannot tell which of two
     * sides that are both behind is further behind, so the share stops between that point and the
     * one where the demands are equal.
     */
    @Test
    void onSharedCoresTheLoopsBusyShareAndTheNodesQueuesMoveTheShareWhereCpuSharesCannot() {
        double runnableShare = 2.0 / 3;
        for (long seed = 1; seed <= 10; seed++) {
            var chain = new Chain(20_000, 0.03, seed);
            var random = new Random(seed);
            var blind = new StateSplit(0);
            var seeing = new StateSplit(0);
            var shares = new ArrayList<Double>();
            for (int second = 0; second < 120; second++) {
                double b = blind.fraction();
                blind.observe(Math.min(chain.frontLoad(b), runnableShare) / 2, Math.min(chain.nodeLoad(b), runnableShare) / 2);
                double p = seeing.fraction();
                seeing.observe(busy(chain.frontLoad(p) / runnableShare, random), busy(chain.nodeLoad(p) / runnableShare, random));
                shares.add(seeing.fraction());
            }
            assertEquals(0, blind.fraction(), "seed " + seed + ": CPU shares below a half never move the share");
            double frontJustBehind = (runnableShare - chain.frontLoad(0)) / (chain.frontLoad(1) - chain.frontLoad(0));
            assertTrue(chain.nodeLoad(frontJustBehind) > runnableShare, "the nodes are still behind there");
            assertTrue(shares.get(29) >= frontJustBehind - 0.05, "seed " + seed + ": within 30 s the front takes calls"
                    + " until its own loop is behind, from " + round(frontJustBehind) + "; shares " + rounded(shares.subList(0, 30)));
            List<Double> steady = shares.subList(60, 120);
            assertTrue(range(steady) < 0.1 && reversals(steady) <= 4, "seed " + seed + ": then it stays; " + rounded(steady));
            // both read "behind" from there on, so the lag's overshoot stays; it never passes the point
            // where the front would be the only one behind
            assertTrue(seeing.fraction() < chain.equalPoint(), "seed " + seed + ": " + round(seeing.fraction())
                    + " short of " + round(chain.equalPoint()));
        }
    }

    /** A busy share as measured: the time a loop could not rest, at most all of it, with noise. */
    private static double busy(double demandOverShare, Random random) {
        return Math.max(0, Math.min(1, demandOverShare + 0.03 * random.nextGaussian()));
    }

    @Test
    void equalLoadsWithinTheDeadBandDoNotMoveTheShare() {
        var split = new StateSplit(0.4);
        var random = new Random(3);
        for (int i = 0; i < 600; i++) {
            split.observe(0.8 + 0.005 * random.nextGaussian(), 0.8 + 0.005 * random.nextGaussian());
        }
        assertEquals(0.4, split.fraction());
    }

    @Test
    void theShareStaysWithinZeroAndOneAndMovesByBoundedStepsWhateverTheInputs() {
        double[] absurd = {Double.NaN, -1, -0.2, 0, 0.3, 1.2, 10, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
        var random = new Random(11);
        var split = new StateSplit(0.5);
        for (int i = 0; i < 10_000; i++) {
            double before = split.fraction();
            split.observe(absurd[random.nextInt(absurd.length)], absurd[random.nextInt(absurd.length)]);
            double after = split.fraction();
            assertTrue(after >= 0 && after <= 1, "share " + after);
            assertTrue(Math.abs(after - before) <= StateSplit.MAX_STEP + 1e-12, "step " + (after - before));
        }
        var full = new StateSplit(1);
        for (int i = 0; i < 100; i++) {
            full.observe(-5, 10); // the nodes saturated, the front idle: wants more than all
        }
        assertEquals(1, full.fraction());
        var none = new StateSplit(0);
        for (int i = 0; i < 100; i++) {
            none.observe(10, -5);
        }
        assertEquals(0, none.fraction());
    }

    @Test
    void anObservationWithANaNIsIgnoredWhole() {
        var split = new StateSplit(0.5);
        split.observe(0.9, 0.9);
        for (int i = 0; i < 100; i++) {
            split.observe(Double.NaN, 0.1);
            split.observe(1.0, Double.NaN);
        }
        assertEquals(0.5, split.fraction());
        split.observe(0.9, 0.9);
        assertEquals(0.5, split.fraction(), "the smoothed loads were not touched by the half-readings");
    }

    @Test
    void anInitialShareOutsideZeroAndOneIsRefused() {
        for (double bad : new double[] {-0.1, 1.1, Double.NaN}) {
            assertThrows(IllegalArgumentException.class, () -> new StateSplit(bad));
        }
    }

    private static List<String> callIds(int count, long seed) {
        var random = new Random(seed);
        var ids = new ArrayList<String>(count);
        for (int i = 0; i < count; i++) {
            ids.add(new UUID(random.nextLong(), random.nextLong()) + "@10.0.0." + random.nextInt(256));
        }
        return ids;
    }

    @Test
    void keepHereKeepsTheShareOfCallIdsAndAnswersTheSameForTheSameCallId() {
        List<String> ids = callIds(100_000, 5);
        for (double share : new double[] {0, 0.1, 0.357, 0.5, 0.9, 1}) {
            var split = new StateSplit(share);
            var again = new StateSplit(share);
            int kept = 0;
            for (String id : ids) {
                boolean here = split.keepHere(id);
                assertEquals(here, split.keepHere(id), "a retransmitted INVITE of " + id);
                assertEquals(here, again.keepHere(id), "another front at the same share, " + id);
                kept += here ? 1 : 0;
            }
            double measured = kept / (double) ids.size();
            assertEquals(share, measured, 0.01, "share of Call-IDs kept at " + share);
        }
    }

    @Test
    void aLargerShareKeepsEveryCallIdASmallerOneKept() {
        var smaller = new StateSplit(0.3);
        var larger = new StateSplit(0.35);
        int moved = 0;
        for (String id : callIds(10_000, 6)) {
            if (smaller.keepHere(id)) {
                assertTrue(larger.keepHere(id), id);
            } else if (larger.keepHere(id)) {
                moved++;
            }
        }
        assertTrue(moved > 300 && moved < 700, "about 5% of the calls change side, not " + moved);
    }

    @Test
    void frontStateReadsItsThreeNames() {
        assertEquals(FrontState.STATELESS, FrontState.parse("stateless"));
        assertEquals(FrontState.STATEFUL, FrontState.parse("stateful"));
        assertEquals(FrontState.DYNAMIC, FrontState.parse(" Dynamic "));
        assertEquals(0, FrontState.STATELESS.initialFraction());
        assertEquals(1, FrontState.STATEFUL.initialFraction());
        assertEquals(0.5, FrontState.DYNAMIC.initialFraction());
    }

    @Test
    void anUnknownFrontStateIsRefusedNamingTheAllowedOnes() {
        for (String bad : new String[] {"", "half", "state-less"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> FrontState.parse(bad));
            assertTrue(e.getMessage().contains("stateless, stateful, dynamic"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> FrontState.parse(null));
    }
}
