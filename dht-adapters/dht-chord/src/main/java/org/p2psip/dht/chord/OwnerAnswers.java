package org.p2psip.dht.chord;

import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Counters;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.Members;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.store.Store;
import org.p2psip.dht.ring.store.Write;

/**
 * The owner's answers to GET, PUT, REMOVE and UPDATE in Chord's wire format: status:u8, body:blob. The
 * rules are the {@link Store}'s; this only reads the requests and writes the answers. Runs on the
 * node's loop.
 */
final class OwnerAnswers {

    private final Store store;
    private final Counters counters;
    private final Members view;

    OwnerAnswers(Store store, Counters counters, Members view) {
        this.store = store;
        this.counters = counters;
        this.view = view;
    }

    /**
     * Serves a GET, PUT, REMOVE or UPDATE payload from the node at {@code sender}, or from this node
     * itself (null). A write whose asker says it takes its copy (a last byte 1), and whose node
     * holds one of this place's replicas, gets that copy in the answer instead of a STORE of its
     * own ({@link #answer}): with four nodes, two writes in three save a frame and its answer.
     */
    CompletableFuture<byte[]> handle(int type, byte[] payload, String sender) {
        var in = new ChordCodec.Reader(payload);
        return switch (type) {
            case MessageType.GET -> get(in.string());
            case MessageType.PUT -> {
                BindingSet next = BindingCodec.decode(in.blob());
                NodeRef asker = replicaAt(sender, in);
                yield store.put(next, asker).thenApply(w -> answer(w, type, next.aor(), asker));
            }
            case MessageType.UPDATE -> {
                String aor = in.string();
                byte[] change = in.blob();
                NodeRef asker = replicaAt(sender, in);
                yield store.update(aor, change, asker).thenApply(w -> answer(w, type, aor, asker));
            }
            case MessageType.REMOVE -> {
                String aor = in.string();
                long version = in.u64();
                NodeRef asker = replicaAt(sender, in);
                yield store.remove(Id.hash(aor), aor, version, asker).thenApply(w -> answer(w, type, aor, asker));
            }
            default -> throw new IllegalArgumentException("not a storage message: " + type);
        };
    }

    /**
     * The replica of this place on the asker's node, when the asker takes its copy in the answer
     * (the request's optional last byte, which a node of an earlier build does not send); else null.
     */
    private NodeRef replicaAt(String sender, ChordCodec.Reader rest) {
        if (sender == null || !rest.more() || rest.u8() != 1) {
            return null;
        }
        return store.replicaTargets().stream().filter(t -> t.address().equals(sender)).findFirst().orElse(null);
    }

    /** What a place that is not on the ring yet answers every operation: its view's owner may be. */
    CompletableFuture<byte[]> notOwner(int type, byte[] payload) {
        var in = new ChordCodec.Reader(payload);
        String aor = type == MessageType.PUT ? BindingCodec.decode(in.blob()).aor() : in.string();
        return status(MessageType.NOT_OWNER, owner(aor));
    }

    private CompletableFuture<byte[]> get(String aor) {
        Id key = Id.hash(aor);
        if (!store.owns(key)) {
            counters.increment("chord.owner.gets");
            return status(MessageType.NOT_OWNER, owner(aor));
        }
        return status(MessageType.OK, body(store.read(key, aor)));
    }

    /** The owner of {@code aor} as this node's view names it, as a NOT_OWNER answer carries it; empty when it names none. */
    private byte[] owner(String aor) {
        NodeRef owner = view.owner(Id.hash(aor));
        return owner == null ? new byte[0] : new ChordCodec.Writer().node(owner).bytes();
    }

    /**
     * A write's answer. A write some replica did not take is not acknowledged: a crash of the owner
     * would lose it (the writer hears a failure and may try again). A refused put carries the record
     * as a get would read it (CONFLICT), so that the writer can apply its change again at once; a
     * refused remove carries nothing. An update carries the record it wrote or found and the rules'
     * answer ({@link #updated}); a write this place does not own, the owner its node's view names.
     */
    private byte[] answer(Write write, int type, String aor, NodeRef asker) {
        return switch (write.outcome()) {
            case STORED -> carried(write, asker, encode(MessageType.OK,
                    type == MessageType.UPDATE ? updated(write.record().set(), write) : new byte[0]));
            case UNREPLICATED -> encode(MessageType.UNREPLICATED, new byte[0]);
            case CONFLICT -> encode(MessageType.CONFLICT, type == MessageType.PUT ? body(write.current()) : new byte[0]);
            case UNCHANGED -> encode(MessageType.UNCHANGED, updated(write.current(), write));
            case MALFORMED -> encode(MessageType.MALFORMED, new byte[0]);
            case NOT_OWNER -> encode(MessageType.NOT_OWNER, owner(aor));
        };
    }

    /** A stored write's answer, followed, when its copy travels with it, by the asker's replica place and the record. */
    private static byte[] carried(Write write, NodeRef asker, byte[] answer) {
        if (!write.carried()) {
            return answer;
        }
        return new ChordCodec.Writer().raw(answer).id(asker.id()).record(write.record()).bytes();
    }

    /** An update's answer body: record:blob (as {@link #body}), then the rules' answer:blob. */
    private static byte[] updated(BindingSet record, Write write) {
        return new ChordCodec.Writer().blob(body(record)).blob(write.answer()).bytes();
    }

    /** A record in an answer: its encoding, or nothing when the AOR has none. */
    private static byte[] body(BindingSet visible) {
        return visible.exists() ? BindingCodec.encode(visible) : new byte[0];
    }

    private static CompletableFuture<byte[]> status(int status, byte[] body) {
        return CompletableFuture.completedFuture(encode(status, body));
    }

    private static byte[] encode(int status, byte[] body) {
        return new ChordCodec.Writer().u8(status).blob(body).bytes();
    }
}
