package org.p2psip.dht.bamboo.routing;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.p2psip.dht.ring.Id;

/**
 * Per-peer timeouts from observed round-trip times, as TCP computes its retransmission timeout
 * (smoothed RTT plus four deviations), so that a silent peer is given up on quickly without
 * giving up on a slow but live one; each timeout in a row doubles it. Bounded by a floor and a
 * ceiling. A peer never measured gets the timeout of all peers' round trips taken together (their
 * smoothed mean plus four deviations, which covers the spread between peers), as the Bamboo paper
 * estimates unmeasured hops rather than waiting the ceiling on each: in a large overlay most
 * lookup hops are nodes the origin never asked before, and a dead one cost the whole ceiling.
 * Before any measurement, the ceiling. Not thread-safe: owned by the node's event loop.
 */
public final class RttEstimator {

    private record Estimate(double srtt, double rttvar, int backoff) {
    }

    private final Duration floor;
    private final Duration ceiling;
    private final Map<Id, Estimate> estimates = new HashMap<>();
    /** Every peer's samples in one estimate: the guess for a peer never measured. */
    private Estimate overall;

    public RttEstimator(Duration floor, Duration ceiling) {
        this.floor = floor;
        this.ceiling = ceiling;
    }

    public void observe(Id peer, Duration rtt) {
        double sample = rtt.toNanos() / 1e6;
        estimates.merge(peer, new Estimate(sample, sample / 2, 0), (old, fresh) -> next(old, sample));
        overall = overall == null ? new Estimate(sample, sample / 2, 0) : next(overall, sample);
    }

    private static Estimate next(Estimate old, double sample) {
        return new Estimate(0.875 * old.srtt() + 0.125 * sample, 0.75 * old.rttvar() + 0.25 * Math.abs(old.srtt() - sample), 0);
    }

    /** A request to {@code peer} timed out: its timeout doubles until it answers again (as TCP backs off). */
    public void timedOut(Id peer) {
        estimates.compute(peer, (id, e) -> e != null ? new Estimate(e.srtt(), e.rttvar(), Math.min(e.backoff() + 1, 16))
                : overall != null ? new Estimate(overall.srtt(), overall.rttvar(), 1) : null);
    }

    public Duration timeout(Id peer) {
        Estimate e = estimates.getOrDefault(peer, overall);
        if (e == null) {
            return ceiling;
        }
        long millis = (long) Math.ceil((e.srtt() + 4 * e.rttvar()) * (1L << e.backoff()));
        return Duration.ofMillis(Math.max(floor.toMillis(), Math.min(ceiling.toMillis(), millis)));
    }

    public void forget(Id peer) {
        estimates.remove(peer);
    }
}
