package org.p2psip.dht.chord;

import java.util.concurrent.CompletableFuture;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Counters;
import org.p2psip.dht.ring.Id;
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

    OwnerAnswers(Store store, Counters counters) {
        this.store = store;
        this.counters = counters;
    }

    /** Serves a GET, PUT, REMOVE or UPDATE payload, from a peer or from this node itself. */
    CompletableFuture<byte[]> handle(int type, byte[] payload) {
        var in = new Wire.Reader(payload);
        return switch (type) {
            case MessageType.GET -> get(in.string());
            case MessageType.PUT -> store.put(BindingCodec.decode(in.blob()), null).thenApply(w -> answer(w, MessageType.PUT));
            case MessageType.UPDATE -> {
                String aor = in.string();
                yield store.update(aor, in.blob(), null).thenApply(w -> answer(w, MessageType.UPDATE));
            }
            case MessageType.REMOVE -> {
                String aor = in.string();
                yield store.remove(Id.hash(aor), aor, in.u64(), null).thenApply(w -> answer(w, MessageType.REMOVE));
            }
            default -> throw new IllegalArgumentException("not a storage message: " + type);
        };
    }

    private CompletableFuture<byte[]> get(String aor) {
        Id key = Id.hash(aor);
        if (!store.owns(key)) {
            counters.increment("chord.owner.gets");
            return status(MessageType.NOT_OWNER, new byte[0]);
        }
        return status(MessageType.OK, body(store.read(key, aor)));
    }

    /**
     * A write's answer. A write some replica did not take is not acknowledged: a crash of the owner
     * would lose it (the writer hears a failure and may try again). A refused put carries the record
     * as a get would read it (CONFLICT), so that the writer can apply its change again at once; a
     * refused remove carries nothing. An update carries the record it wrote or found.
     */
    private static byte[] answer(Write write, int type) {
        return switch (write.outcome()) {
            case STORED -> encode(MessageType.OK, type == MessageType.UPDATE ? body(write.record().set()) : new byte[0]);
            case UNREPLICATED -> encode(MessageType.UNREPLICATED, new byte[0]);
            case CONFLICT -> encode(MessageType.CONFLICT, type == MessageType.PUT ? body(write.current()) : new byte[0]);
            case UNCHANGED -> encode(MessageType.UNCHANGED, body(write.current()));
            case MALFORMED -> encode(MessageType.MALFORMED, new byte[0]);
            case NOT_OWNER -> encode(MessageType.NOT_OWNER, new byte[0]);
        };
    }

    /** A record in an answer: its encoding, or nothing when the AOR has none. */
    private static byte[] body(BindingSet visible) {
        return visible.exists() ? BindingCodec.encode(visible) : new byte[0];
    }

    private static CompletableFuture<byte[]> status(int status, byte[] body) {
        return CompletableFuture.completedFuture(encode(status, body));
    }

    private static byte[] encode(int status, byte[] body) {
        return new Wire.Writer().u8(status).blob(body).bytes();
    }
}
