package org.p2psip.dht.ring.store;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.Counters;
import org.p2psip.dht.ring.NodeRef;

/**
 * Many records carried to other nodes over a {@link RecordLink}, one message in flight per
 * target: the next leaves once the last was taken, and none after one that was not. A full copy
 * (a replica push, a hand-over) can hold hundreds of thousands of records; sent at once they
 * filled the connection's buffers, the users' operations behind them were refused or timed out,
 * and two loaded nodes dropped each other again and again. Not thread-safe: runs on the node's loop.
 */
final class PacedTransfer {

    private final RecordLink link;
    private final Counters counters;
    private final String prefix;

    PacedTransfer(RecordLink link, Counters counters, String prefix) {
        this.link = link;
        this.counters = counters;
        this.prefix = prefix;
    }

    /** Sends {@code records} to every target; completes true when all took all of them, never fails. */
    CompletableFuture<Boolean> to(List<NodeRef> targets, List<Record> records) {
        if (targets.isEmpty() || records.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        var batches = new Batches(records, link);
        return allTaken(targets.stream().map(target -> inTurn(target, batches, 0)).toList());
    }

    /** True once every copy was taken, false once all answered and one was not; never fails. */
    static CompletableFuture<Boolean> allTaken(List<CompletableFuture<Boolean>> copies) {
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new))
                .thenApply(answered -> copies.stream().allMatch(CompletableFuture::join));
    }

    private CompletableFuture<Boolean> inTurn(NodeRef target, Batches batches, int next) {
        if (!batches.has(next)) {
            return CompletableFuture.completedFuture(true);
        }
        return link.send(target, batches.get(next))
                .handle((answer, failure) -> failure == null)
                .thenCompose(taken -> {
                    if (!taken) {
                        counters.increment(prefix + ".replica.failures");
                        return CompletableFuture.completedFuture(false);
                    }
                    return inTurn(target, batches, next + 1);
                });
    }
}
