package org.p2psip.front.calls;

/**
 * The share of new calls whose transaction state the front keeps, moved once a second from the
 * front's load and the busiest node's, after SERvartuka ("Dynamic Distribution of State to
 * Improve SIP Server Scalability", Balasubramaniyan et al., ICDCS 2008): along a chain of proxies the state is kept where there is CPU to spare, so that
 * neither end saturates first. A call kept at the front costs the front about three times a
 * stateless forward and leaves its node only a lookup answered with a redirect; a call left to
 * the node costs the node a stateful proxy. Taking more calls therefore moves load from the
 * nodes to the front, and the point aimed at is where both are equally busy relative to their
 * capacity: then the chain carries the most before either end saturates.
 *
 * <p>The law, on each {@link #observe}:
 * <ol>
 * <li>Each load is smoothed by an exponentially weighted average (a new second weighs
 * {@value #SMOOTHING}), so that one noisy second does not move the share. An observation with
 * a NaN is ignored; loads are clamped to [0, {@value #MAX_LOAD}].
 * <li>While both smoothed loads are below {@value #LOW_LOAD} nobody is busy: the share stays.
 * <li>The error is the smoothed front load less the smoothed node load. Within the dead band
 * (±{@value #DEAD_BAND}, about twice the smoothed noise) the two are equal enough: the share
 * stays, which is what ends the motion once the point is reached.
 * <li>Else the share moves against the error (down if the front is the busier), by
 * {@value #GAIN} x damping x (|error| less the dead band), at most {@value #MAX_STEP}: far
 * from the point it moves fast, near it slowly, and never by a jump that could take the front
 * from idle to saturated in one second.
 * <li>The damping starts at 1. A move whose direction reverses the previous move halves it
 * (down to {@value #MIN_DAMPING}); a move in the same direction as the previous one multiplies
 * it by {@value #RECOVERY}, back up to 1.
 * </ol>
 *
 * <p>Why it does not oscillate: the smoothing delays what a move does to the loads by a few
 * seconds, so a loop with a fixed gain can overshoot the point and come back, again and again (a
 * limit cycle). Here every overshoot is a reversal, and every reversal halves the next steps, so
 * successive swings shrink geometrically until they end inside the dead band, where nothing
 * moves at all; noise inside the band cannot start a swing again. A step that starts from the
 * edge of the band is proportional to the error beyond it, so a second of noise just past the
 * band moves the share by little. The damping is restored only by moves that keep one
 * direction, and slowly: it takes five of them (1.15^5 = 2) to earn back one halving, so a swing
 * of four moves or fewer each way loses gain at every turn and dies out, while a real change of
 * load, which makes the share travel one way for many seconds, soon restores full speed. The
 * step cap bounds how far one wrong second can push. The gain, 0.3, is small beside the chain's
 * own: a unit of share moves the load difference by about 1 (0.8 to 1.4 in the tests' chain: the
 * front's extra cost of a stateful call plus the node's saving, times the rate; 3 for a front
 * three times slower), so one second corrects a third of the error or less and even a threefold
 * chain does not step past the point on the error of one second. What overshoot remains comes
 * from the lag, and from a saturated side that reports less than its true load; the first
 * reversal halves it away.
 *
 * <p>Thread-safe: {@link #fraction} and {@link #keepHere} read a volatile field without a lock;
 * {@link #observe} is meant for one thread and holds the object's lock.
 */
public final class StateSplit {

    /** Weight of a new second in the smoothed loads: a time constant of about four seconds. */
    static final double SMOOTHING = 0.25;
    /** Below this both sides have headroom: no reason to move state either way. */
    static final double LOW_LOAD = 0.5;
    /** Smoothed loads closer than this are equal: the inputs' noise, smoothed, stays within it. */
    static final double DEAD_BAND = 0.03;
    /** Change of the share per unit of load difference beyond the dead band, at full damping. */
    static final double GAIN = 0.3;
    /** Largest change of the share in one observation. */
    static final double MAX_STEP = 0.1;
    /** Lowest damping, after repeated reversals: steps never stop altogether. */
    static final double MIN_DAMPING = 1.0 / 16;
    /** Damping regained by a move in the same direction as the last one. */
    static final double RECOVERY = 1.15;
    /** Loads are clamped to this: a report of 10 is a saturated server, not ten of them. */
    static final double MAX_LOAD = 1.5;

    private volatile double fraction;

    // observe's own state, under the lock
    private double front = Double.NaN;
    private double node = Double.NaN;
    private double damping = 1;
    private int lastDirection;

    public StateSplit(double initialFraction) {
        if (!(initialFraction >= 0 && initialFraction <= 1)) {
            throw new IllegalArgumentException("the initial fraction must be in [0, 1], not " + initialFraction);
        }
        this.fraction = initialFraction;
    }

    /** The share in [0, 1] of new INVITEs the front handles statefully. */
    public double fraction() {
        return fraction;
    }

    /**
     * Whether the front keeps the state of the call {@code callId}: its hash below the share. The
     * same Call-ID gets the same answer while the share stays, so a retransmitted INVITE is
     * treated as its original; when the share moves, only the Call-IDs whose hash lies between
     * the old and the new threshold change side.
     */
    public boolean keepHere(String callId) {
        return (mix(callId.hashCode()) & 0xffff) < fraction * 65536;
    }

    /**
     * One second's utilisations of the front and of the busiest node (each 0 idle, 1 saturated),
     * which may move the share: see the class comment.
     */
    public synchronized void observe(double frontLoad, double nodeLoad) {
        if (Double.isNaN(frontLoad) || Double.isNaN(nodeLoad)) {
            return; // a lost measurement says nothing; the pair is taken whole or not at all
        }
        frontLoad = clamp(frontLoad, 0, MAX_LOAD);
        nodeLoad = clamp(nodeLoad, 0, MAX_LOAD);
        if (Double.isNaN(front)) {
            front = frontLoad;
            node = nodeLoad;
        } else {
            front += SMOOTHING * (frontLoad - front);
            node += SMOOTHING * (nodeLoad - node);
        }
        if (front < LOW_LOAD && node < LOW_LOAD) {
            return;
        }
        double error = front - node;
        if (Math.abs(error) <= DEAD_BAND) {
            return;
        }
        int direction = error > 0 ? -1 : 1;
        double current = fraction;
        if (direction < 0 ? current <= 0 : current >= 1) {
            return; // against the bound: nothing moves, so neither a reversal nor a same-way move
        }
        if (lastDirection != 0) {
            damping = direction == lastDirection
                    ? Math.min(1, damping * RECOVERY)
                    : Math.max(MIN_DAMPING, damping / 2);
        }
        lastDirection = direction;
        double step = Math.min(MAX_STEP, GAIN * damping * (Math.abs(error) - DEAD_BAND));
        fraction = clamp(current + direction * step, 0, 1);
    }

    /** The damping now, for tests and the status page. */
    synchronized double damping() {
        return damping;
    }

    private static double clamp(double value, double low, double high) {
        return Math.max(low, Math.min(high, value));
    }

    /** Murmur3's finaliser: Call-IDs that differ in one character land far apart. */
    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
