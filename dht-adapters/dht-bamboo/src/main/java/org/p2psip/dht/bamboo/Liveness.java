package org.p2psip.dht.bamboo;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.p2psip.config.Config;
import org.p2psip.dht.Counters;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.routing.NodeHandle;
import org.p2psip.dht.bamboo.routing.RttEstimator;
import org.p2psip.dht.bamboo.wire.Message.Ping;

/**
 * What a node knows of its peers' liveness: who spoke last and when, who is being probed, the
 * strikes of those that did not answer, and the dead marks that keep a dropped node from being
 * re-learnt second-hand at once. It takes nodes into the tables when they are heard from, probes
 * the suspect ones and drops the dead ones. Owned by the node's loop, as the tables are.
 */
final class Liveness {

    /** Timeouts in a row after which a peer is taken for dead. */
    static final int STRIKES = 3;

    private final BambooNode owner;
    private final RttEstimator rtt;
    private final Duration tablePeriod;
    /** How long a dropped node is not re-learnt second-hand: five leaf-set periods. */
    private final long deadFor;
    private final Map<Id, Long> deadUntil = new HashMap<>();
    private final Set<Id> probing = new HashSet<>();
    private final Map<Id, Integer> silences = new HashMap<>();
    /** When each known node last answered or spoke to this one ({@link BambooNode#nanoTime}). */
    private final Map<Id, Long> lastHeard = new HashMap<>();
    private final Counters counters = new Counters();

    Liveness(BambooNode owner, RttEstimator rtt, Config config) {
        this.owner = owner;
        this.rtt = rtt;
        this.tablePeriod = config.get(BambooOptions.TABLE_PERIOD);
        this.deadFor = 5 * config.get(BambooOptions.LEAF_SET_PERIOD).toNanos();
    }

    /** A request to {@code node} was answered: it is alive, and its strikes are cleared. */
    void answered(NodeHandle node) {
        silences.remove(node.id());
        lastHeard.put(node.id(), owner.nanoTime());
    }

    Map<String, Long> metrics() {
        return counters.snapshot("bamboo.peers.dropped");
    }

    /** A node that spoke to this one directly, or that a trusted answer named: it is alive. */
    void heard(NodeHandle node) {
        if (node.id().equals(owner.self().id()) || owner.isClosed()) {
            return;
        }
        deadUntil.remove(node.id());
        lastHeard.put(node.id(), owner.nanoTime());
        boolean changed = owner.leafSet().add(node);
        if (owner.table().add(node)) {
            owner.maintenance().tableChanged();
        }
        if (changed) {
            owner.maintenance().leafSetChanged();
        }
    }

    /** A node named second-hand: probed first, and taken only if it answers and has a place. */
    void learn(NodeHandle node) {
        Long dead = deadUntil.get(node.id());
        if (dead != null && dead - owner.nanoTime() > 0) {
            return;
        }
        if (!(owner.leafSet().accepts(node) || owner.table().accepts(node)) || !probing.add(node.id())) {
            return;
        }
        owner.send(node, new Ping(owner.self()), rtt.timeout(node.id())).whenComplete((pong, e) -> {
            probing.remove(node.id());
            if (e == null) {
                heard(node);
            }
        });
    }

    /**
     * A known node that did not answer a lookup in time: probed until it answers or has missed
     * {@link #STRIKES} pings in a row, so that a dead one is struck off within a few round-trip
     * timeouts while a slow one stays. One probe at a time per node.
     */
    void suspect(NodeHandle node) {
        if (owner.isClosed() || !probing.add(node.id())) {
            return;
        }
        probe(node);
    }

    /**
     * One ping of a probe, waiting the patient {@code timeout.max}: RTT-based timeouts suit
     * routing around a hop, but three of them missed by a loaded node (a root busy with its
     * disk, a test's machine under load) would drop a live one. A miss is a strike, so a dead
     * node is dropped after {@link #STRIKES} of them and the probe ends, as it does when the
     * node answers.
     */
    private void probe(NodeHandle node) {
        owner.send(node, new Ping(owner.self()), owner.maxTimeout()).whenComplete((pong, e) -> {
            if (e != null && !owner.isClosed() && (owner.leafSet().contains(node.id()) || owner.table().contains(node.id()))) {
                probe(node);
            } else {
                probing.remove(node.id());
            }
        });
    }

    /** The leaf-set members among {@code ids}, which a read's origin found silent: probed. */
    void suspectAmongMembers(List<Id> ids) {
        for (NodeHandle member : owner.leafSet().members()) {
            if (ids.contains(member.id())) {
                suspect(member);
            }
        }
    }

    /**
     * Keepalive: probes each leaf-set member not heard from for {@code quiet}. Any message from
     * or answer by a member counts as hearing it, so a pair of neighbours that talk anyway sends
     * no ping, and one ping a keepalive serves both ends.
     */
    void keepAlive(Duration quiet) {
        long now = owner.nanoTime();
        for (NodeHandle member : owner.leafSet().members()) {
            Long heardAt = lastHeard.get(member.id());
            if (heardAt == null || now - heardAt >= quiet.toNanos()) {
                suspect(member);
            }
        }
    }

    /**
     * A node this one names as the next hop: if it has not been heard from for a table period, it
     * is probed (a routing-table entry is otherwise only checked when tuning picks its row, and a
     * dead one named to every origin would send them all the wrong way until then). Its strikes
     * drop it; the origin meanwhile routes around it.
     */
    void vouchFor(NodeHandle next) {
        if (next.equals(owner.self())) {
            return;
        }
        Long heardAt = lastHeard.get(next.id());
        if (heardAt == null || owner.nanoTime() - heardAt > tablePeriod.toNanos()) {
            suspect(next);
        }
    }

    /**
     * A node that did not answer in time: its timeout backs off, and a probe, a copy or an
     * operation that timed out is a strike (a lookup hop with its short, RTT-based timeout is
     * routed around and {@link #suspect}ed instead). After {@link #STRIKES} in a row the node is dropped, so that a loaded but live
     * node (a root busy with its disk) is not taken for dead, which would let another node act as
     * root of its keys.
     */
    void timedOut(NodeHandle node, boolean strike) {
        rtt.timedOut(node.id());
        if (strike && (silences.merge(node.id(), 1, Integer::sum) >= STRIKES)) {
            failed(node);
        }
    }

    /** A node that refused, or timed out too often: dropped from the tables, and not re-learnt for a while. */
    void failed(NodeHandle node) {
        silences.remove(node.id());
        counters.increment("bamboo.peers.dropped");
        boolean changed = owner.leafSet().remove(node.id());
        if (owner.table().remove(node.id())) {
            owner.maintenance().tableChanged();
        }
        rtt.forget(node.id());
        deadUntil.put(node.id(), owner.nanoTime() + deadFor);
        if (changed) {
            owner.rejoin().lost(node);
            owner.maintenance().leafSetChanged();
        }
    }

    /** Forgets dead marks that have run out, and strikes of nodes no longer known, so that churn does not grow the maps for ever. */
    void pruneDead() {
        long now = owner.nanoTime();
        deadUntil.values().removeIf(until -> until - now < 0);
        silences.keySet().removeIf(id -> !owner.leafSet().contains(id) && !owner.table().contains(id));
        lastHeard.keySet().removeIf(id -> !owner.leafSet().contains(id) && !owner.table().contains(id));
    }
}
