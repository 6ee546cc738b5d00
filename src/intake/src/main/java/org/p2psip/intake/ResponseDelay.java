package org.p2psip.intake;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * How long requests stay in the node, from the datagram's arrival to the application's final
 * answer, and the share of new requests to refuse so that it stays near a target: the
 * proportional-integral rule of PIE (RFC 8033) on that delay. The queue before the message
 * threads is only one of the places a request waits: the backend's event loop, the peers of the
 * overlay and the container's executor are the others, and with several nodes they filled while
 * that queue stayed short. Every REGISTER let through is timed (the intake reads its branch
 * anyway). As in RFC 8033, the rule moves the share slowly while it is small: a single slow
 * answer (a lookup retried within its deadline on a node just started) must not refuse anyone.
 *
 * <p>Thread-safe: message threads note arrivals, application threads answers, one thread updates.
 */
final class ResponseDelay {

    /** Every update moves the refused share by this much per target of delay above (or below) it. */
    private static final double ALPHA = 0.05;
    /** ...and by this much per target the delay grew (or fell) since the last update. */
    private static final double BETA = 0.5;
    private static final double MAX_SHARE = 0.95;
    /**
     * RFC 8033's burst allowance: delay above the target for less than this long, after a calm
     * spell, refuses no one (a collector pause, a lookup retried once on a ring just formed).
     */
    static final long MAX_BURST_NANOS = 150_000_000L;
    /** RFC 8033 §5.1: while the delay is under half the target and the share under this, no one is refused. */
    private static final double LOW_SHARE = 0.2;
    /** Arrivals never answered (the request failed before the application saw it) are forgotten past this many... */
    private static final int MAX_TRACKED = 16_384;
    /** ...or this old: the application answers everything within its DHT deadline. */
    private static final long FORGET_NANOS = 10_000_000_000L;

    private final long targetNanos;
    private final ConcurrentHashMap<String, Long> arrivals = new ConcurrentHashMap<>();
    private final LongAdder delaySum = new LongAdder();
    private final LongAdder delayCount = new LongAdder();
    private volatile double lastDelay;
    private volatile double refusedShare;
    private volatile long burstAllowance = MAX_BURST_NANOS;
    private long lastUpdate = Long.MIN_VALUE;

    ResponseDelay(long targetNanos) {
        this.targetNanos = targetNanos;
    }

    void arrived(String branch, long arrivalNanos) {
        if (arrivals.size() >= MAX_TRACKED) {
            arrivals.clear();
        }
        arrivals.put(branch, arrivalNanos);
    }

    /** The application answered the request with this branch (lower case) at {@code now}. */
    void answered(String branch, long now) {
        Long arrival = arrivals.remove(branch);
        if (arrival != null) {
            delaySum.add(now - arrival);
            delayCount.increment();
        }
    }

    /**
     * Called every update interval: the delay of the last interval moves the refused share. That
     * delay is the mean of the answers timed since the last call; when none was answered, the
     * age of the oldest request still unanswered (a node so stuck that it answers nothing must
     * not look idle). An idle node refuses nothing.
     */
    synchronized void update(long now) {
        long count = delayCount.sumThenReset();
        long sum = delaySum.sumThenReset();
        long oldest = 0;
        for (var arrival : arrivals.entrySet()) {
            long age = now - arrival.getValue();
            if (age > FORGET_NANOS) {
                arrivals.remove(arrival.getKey(), arrival.getValue());
            } else {
                oldest = Math.max(oldest, age);
            }
        }
        double delay = (count > 0 ? (double) sum / count : oldest) / targetNanos;
        double share = refusedShare + gentleness(refusedShare) * (ALPHA * (delay - 1) + BETA * (delay - lastDelay));
        boolean calm = refusedShare == 0 && delay < 0.5 && lastDelay < 0.5;
        long elapsed = lastUpdate == Long.MIN_VALUE ? 0 : now - lastUpdate;
        burstAllowance = calm ? MAX_BURST_NANOS : Math.max(0, burstAllowance - elapsed);
        lastUpdate = now;
        lastDelay = delay;
        refusedShare = Math.max(0, Math.min(MAX_SHARE, share));
    }

    /** RFC 8033's auto-tuning: the smaller the share, the smaller its steps. */
    private static double gentleness(double share) {
        if (share < 0.000001) {
            return 1.0 / 2048;
        } else if (share < 0.00001) {
            return 1.0 / 512;
        } else if (share < 0.0001) {
            return 1.0 / 128;
        } else if (share < 0.001) {
            return 1.0 / 32;
        } else if (share < 0.01) {
            return 1.0 / 8;
        } else if (share < 0.1) {
            return 1.0 / 2;
        }
        return 1;
    }

    /**
     * Whether to refuse the next new request: true with the current refused share, once the
     * burst allowance is spent, and not while the delay is low again and the share small (it
     * decays slowly after a spike that is over).
     */
    boolean refuseNext() {
        double share = refusedShare;
        if (share == 0 || burstAllowance > 0 || (lastDelay < 0.5 && share < LOW_SHARE)) {
            return false;
        }
        return ThreadLocalRandom.current().nextDouble() < share;
    }

    double refusedShare() {
        return refusedShare;
    }
}
