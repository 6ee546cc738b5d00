package org.p2psip.dht.bamboo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.p2psip.dht.Counters;
import org.p2psip.dht.bamboo.routing.NodeHandle;

/**
 * How a node whose leaf set lost every member finds the overlay again. Bamboo's own recovery
 * only exchanges with members, so a node cut off (a split, or every other node silent for a
 * while) would drop its peers and serve alone for ever, each side of the split taking every
 * write. Each leaf-set period while it is alone, it joins again through one of the last
 * {@link #LOST_KEPT} members it dropped (most recent first) or the deployment's configured
 * bootstrap and members, in turn, one attempt at a time; a join gives up after one deadline, so
 * an address that does not answer costs one attempt. A node that never had a member (the first
 * one, alone on purpose) has nothing to find and never tries. Runs on the node's loop.
 */
final class Rejoin {

    /** Leaf-set members dropped that the node remembers, the latest first: a few, the last ones heard. */
    static final int LOST_KEPT = 4;
    static final String ATTEMPTS = "bamboo.rejoin.attempts";
    static final String REJOINED = "bamboo.rejoined";

    private final BambooNode node;
    private final Deque<String> lost = new ArrayDeque<>();
    /** Set by the thread that starts the node, read on its loop. */
    private volatile List<String> members = List.of();
    private int turn;
    private boolean trying;
    private final Counters counters = new Counters();

    Rejoin(BambooNode node) {
        this.node = node;
    }

    /** The deployment's bootstrap and members, other than this node: tried after the lost members. */
    void members(List<String> addresses) {
        members = List.copyOf(addresses);
    }

    /** A leaf-set member was dropped: remembered as one to try should the node be left alone. */
    void lost(NodeHandle member) {
        lost.remove(member.address());
        lost.addFirst(member.address());
        while (lost.size() > LOST_KEPT) {
            lost.removeLast();
        }
    }

    /** Once per leaf-set period: an alone node that had members tries one address, unless an attempt or a join is under way. */
    void round() {
        if (trying || lost.isEmpty() || node.isJoining() || !node.leafSet().members().isEmpty()) {
            return;
        }
        List<String> through = new ArrayList<>(lost);
        members.stream().filter(m -> !through.contains(m)).forEach(through::add);
        String address = through.get(Math.floorMod(turn++, through.size()));
        trying = true;
        counters.increment(ATTEMPTS);
        node.join(address).whenCompleteAsync((v, e) -> {
            trying = false;
            if (e == null && !node.leafSet().members().isEmpty()) {
                counters.increment(REJOINED);
            }
        }, node.loop());
    }

    Map<String, Long> metrics() {
        return counters.snapshot(ATTEMPTS, REJOINED);
    }
}
