package org.p2psip.dht.ring.store;

import java.util.List;
import java.util.Objects;
import org.p2psip.dht.Counters;
import org.p2psip.dht.ring.NodeThread;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.RingSettings;

/**
 * Copies the records a node owns to its replicas in full when they need it: when the replicas or
 * the owned range changed since the last complete copy (a joined or failed successor, a new
 * predecessor), or when a write's copy failed since, at most once per refresh interval. Not
 * periodically otherwise: a full copy costs the loop time in proportion to the records held (a
 * stall of a loaded node every interval), and copies that all arrived need no repair. A full copy
 * that failed is tried again for the same replicas after a pause that doubles with each failure in
 * a row, from one stabilisation interval up to the refresh interval: retrying at once a copy an
 * overloaded replica could not take fed the overload (two peers past their capacity pushed
 * 160,000 records every few seconds and never recovered). Not thread-safe: runs on the node's loop.
 */
final class ReplicaUpkeep {

    private final Store store;
    private final NodeThread loop;
    private final PacedTransfer copies;
    private final RingSettings settings;
    private final Counters counters;
    private final String prefix;
    private boolean pushing;
    private boolean missedCopies;
    private Push lastPushed;
    private Push lastFailed;
    private int failuresInRow;

    ReplicaUpkeep(Store store, PacedTransfer copies, NodeThread loop, RingSettings settings, Counters counters, String prefix) {
        this.store = store;
        this.loop = loop;
        this.copies = copies;
        this.settings = settings;
        this.counters = counters;
        this.prefix = prefix;
    }

    /** @param copyFailed whether a write's copy failed since the last call */
    void run(boolean copyFailed) {
        missedCopies |= copyFailed;
        List<NodeRef> targets = store.replicaTargets();
        NodeRef predecessor = store.predecessor();
        long now = loop.nanoTime();
        long refresh = settings.replicaRefresh().toNanos();
        boolean unchanged = Push.same(lastPushed, targets, predecessor);
        boolean fresh = unchanged && now - lastPushed.atNanos < refresh;
        boolean backingOff = Push.same(lastFailed, targets, predecessor) && now - lastFailed.atNanos < backoffNanos();
        if (pushing || backingOff || (unchanged && (fresh || !missedCopies))) {
            return;
        }
        pushing = true;
        missedCopies = false;
        counters.increment(prefix + ".replica.pushes");
        copies.to(targets, store.owned()).whenComplete((all, ignored) -> {
            pushing = false;
            var push = new Push(targets, predecessor, loop.nanoTime());
            if (Boolean.TRUE.equals(all)) {
                lastPushed = push;
                lastFailed = null;
                failuresInRow = 0;
            } else {
                lastFailed = push;
                failuresInRow++;
                missedCopies = true;
            }
        });
    }

    private long backoffNanos() {
        long pause = settings.stabilize().toNanos() << Math.min(failuresInRow - 1, 20);
        return Math.min(pause, settings.replicaRefresh().toNanos());
    }

    /** A complete copy to {@code to} while the predecessor was {@code predecessor}, ended at {@code atNanos}. */
    private record Push(List<NodeRef> to, NodeRef predecessor, long atNanos) {

        /** Whether {@code push} went to the same replicas for the same range. */
        static boolean same(Push push, List<NodeRef> to, NodeRef predecessor) {
            return push != null && push.to.equals(to) && Objects.equals(push.predecessor, predecessor);
        }
    }
}
