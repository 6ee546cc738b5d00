package org.p2psip.dht.chord;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.overlay.OverlayTransport;

/**
 * The STOREs a node's places send to the places of one other physical node, with one frame in
 * flight per node: the STOREs that wait meanwhile leave together in one COPIES frame. Each place
 * pipelines its copies to each replica place ({@code dht-ring}'s {@code Replicas}), but with 64
 * places per node the writes of one place are few, and its batches carried about one copy each:
 * a REGISTER cost two frames, two answers and four HMACs for its copies however loaded the node.
 * Per physical node the copies of all places meet, and under load one frame carries many. A STORE
 * larger than {@link #ALONE_BYTES} (a hand-over's or a full copy's) travels alone, in a STORE of its own, so
 * that write copies never wait behind it; so does every STORE to a node not known to read COPIES
 * (one that never gossiped its view: an earlier build, which would refuse the frame). Not
 * thread-safe: runs on the node's loop, where the transport's answers complete.
 */
final class NodeCopies {

    /** A STORE at least this long travels alone. */
    static final int ALONE_BYTES = 16 * 1024;
    /** A COPIES frame carries STOREs up to about this many bytes; the rest wait for the next. */
    private static final int FRAME_BYTES = 128 * 1024;

    private final OverlayTransport transport;
    private final Duration timeout;
    private final Counters counters;
    private final Predicate<String> readsFrames;
    private final Map<String, Lane> lanes = new HashMap<>();

    /** @param readsFrames whether the node at an address reads COPIES frames */
    NodeCopies(OverlayTransport transport, Duration timeout, Counters counters, Predicate<String> readsFrames) {
        this.transport = transport;
        this.timeout = timeout;
        this.counters = counters;
        this.readsFrames = readsFrames;
    }

    /** One STORE for the place {@code target} on another node; completes when it took the records, fails when not. */
    CompletableFuture<byte[]> send(NodeRef target, byte[] store) {
        if (store.length >= ALONE_BYTES || !readsFrames.test(target.address())) {
            return transport.request(target.address(), MessageType.STORE, NodePlaces.addressed(target.id(), store),
                    timeout).toCompletableFuture();
        }
        Lane lane = lanes.computeIfAbsent(target.address(), a -> new Lane());
        var part = new Part(target.id(), store, new CompletableFuture<>());
        lane.waiting.add(part);
        flush(target.address(), lane);
        return part.taken;
    }

    private void flush(String address, Lane lane) {
        if (lane.inFlight) {
            return;
        }
        if (lane.waiting.isEmpty()) {
            lanes.remove(address, lane);
            return;
        }
        var parts = new ArrayList<Part>();
        int bytes = 0;
        while (!lane.waiting.isEmpty() && (parts.isEmpty() || bytes + lane.waiting.peek().store.length < FRAME_BYTES)) {
            Part next = lane.waiting.poll();
            parts.add(next);
            bytes += next.store.length;
        }
        lane.inFlight = true;
        counters.increment("chord.copy-frames");
        counters.add("chord.copy-frame.stores", parts.size());
        request(address, parts).whenComplete((taken, failure) -> {
            lane.inFlight = false;
            for (int i = 0; i < parts.size(); i++) {
                CompletableFuture<byte[]> done = parts.get(i).taken;
                if (failure != null) {
                    done.completeExceptionally(DhtException.from(failure));
                } else if (taken.get(i)) {
                    done.complete(new byte[0]);
                } else {
                    done.completeExceptionally(new DhtException(Reason.UNREACHABLE, address + " did not take a copy"));
                }
            }
            flush(address, lane);
        });
    }

    /** One STORE alone as it always travelled; several in a COPIES frame, answered with whether each was taken. */
    private CompletableFuture<List<Boolean>> request(String address, List<Part> parts) {
        if (parts.size() == 1) {
            Part part = parts.get(0);
            return transport.request(address, MessageType.STORE, NodePlaces.addressed(part.target, part.store), timeout)
                    .toCompletableFuture().thenApply(answer -> List.of(true));
        }
        var out = new ChordCodec.Writer().u16(parts.size());
        for (Part part : parts) {
            out.id(part.target).blob(part.store);
        }
        byte[] payload = NodePlaces.addressed(Id.hash(address), out.bytes());
        return transport.request(address, MessageType.COPIES, payload, timeout).toCompletableFuture()
                .thenApply(answer -> {
                    var in = new ChordCodec.Reader(answer);
                    var taken = new ArrayList<Boolean>(parts.size());
                    for (int i = 0; i < parts.size(); i++) {
                        taken.add(in.u8() == 1);
                    }
                    return taken;
                });
    }

    private static final class Lane {
        final ArrayDeque<Part> waiting = new ArrayDeque<>();
        boolean inFlight;
    }

    private record Part(Id target, byte[] store, CompletableFuture<byte[]> taken) {
    }
}
