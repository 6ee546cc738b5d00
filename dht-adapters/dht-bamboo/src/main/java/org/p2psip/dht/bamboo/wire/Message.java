package org.p2psip.dht.bamboo.wire;

import java.util.List;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.routing.NodeHandle;
import org.p2psip.dht.bamboo.storage.KeyValues;
import org.p2psip.dht.bamboo.storage.ValueStore;

/**
 * Everything Bamboo nodes say to each other: each request type and its answer. Immutable
 * records; {@link MessageCodec} gives each its bytes on the wire.
 */
public sealed interface Message {

    /** A request about a key, answered only by the key's root; any other node answers {@link Redirect}. */
    sealed interface Keyed extends Message {
        Id key();
    }

    // ---- liveness and routing state ----

    /** Are you there? Answered by {@link Pong}; the round trip feeds the timeout estimates. */
    record Ping(NodeHandle from) implements Message {
    }

    record Pong(NodeHandle from) implements Message {
    }

    /** Push-pull of leaf sets: the sender's members; answered by {@link Handles} with the receiver's. */
    record LeafSetExchange(NodeHandle from, List<NodeHandle> members) implements Message {
    }

    /** Asks for one row of the receiver's routing table ({@code row} &lt; 0: every entry and the leaf set). */
    record TableRequest(NodeHandle from, int row) implements Message {
    }

    record Handles(List<NodeHandle> handles) implements Message {
    }

    /**
     * Where should a lookup of {@code key} go next? Answered by {@link Hop}. {@code avoid}: nodes
     * that did not answer this lookup's origin, which the hop routes around as the origin does
     * (not the root its leaf set names: that is the leaf set's to judge).
     */
    record Lookup(NodeHandle from, Id key, List<Id> avoid) implements Message {
        public Lookup(NodeHandle from, Id key) {
            this(from, key, List.of());
        }
    }

    /** The next hop towards a key; {@code last}: it is the key's root as the answering node sees it. */
    record Hop(NodeHandle node, boolean last) implements Message {
    }

    // ---- storage at a key's root (OpenDHT put/get/remove, and compare-and-set) ----

    record Put(Id key, byte[] value, long ttlMillis, byte[] secretHash) implements Keyed {
    }

    /**
     * {@code avoid}: roots that did not answer this read; the node nearest the key but them
     * serves it from its copy (a replica), and others send it there.
     */
    record Get(Id key, int max, byte[] placemark, List<Id> avoid) implements Keyed {
        public Get(Id key, int max, byte[] placemark) {
            this(key, max, placemark, List.of());
        }
    }

    record Remove(Id key, byte[] valueHash, byte[] secret) implements Keyed {
    }

    /**
     * Compare-and-set of a versioned record: store {@code set} (a BindingSet in BindingCodec's
     * encoding, kept until its retention) if the stored version is {@code expected}.
     */
    record Swap(Id key, long expected, byte[] set, byte[] secret) implements Keyed {
    }

    /**
     * A change to an AOR's versioned record, which the root applies with its {@link
     * org.p2psip.dht.OwnerRules}; answered by {@link Applied}.
     */
    record Apply(Id key, String aor, byte[] change, byte[] secret) implements Keyed {
    }

    /** Compare-and-remove of a versioned record. */
    record Forget(Id key, long version, byte[] secret) implements Keyed {
    }

    /** Copies of keys a node should hold, from their root or a holder repairing replicas; answered by {@link Done}. */
    record Store(NodeHandle from, List<KeyValues> copies) implements Message {
    }

    // ---- answers ----

    record Done() implements Message {
    }

    /**
     * Whether a Swap, Apply or Forget was done; when a Swap was not, {@code current} is the live
     * value that refused it (empty for none), so that the writer can apply its change again at
     * once.
     */
    record Outcome(boolean ok, byte[] current) implements Message {
    }

    /**
     * What an Apply did: whether it wrote, the value it wrote or the live one it left ({@code
     * current}, empty for none), and the rules' answer for the change's maker ({@link
     * org.p2psip.dht.Updated#answer}).
     */
    record Applied(boolean written, byte[] current, byte[] answer) implements Message {
    }

    record Values(List<ValueStore.Found> found, byte[] placemark) implements Message {
    }

    record Removed(ValueStore.Removal removal) implements Message {
    }

    /** The receiver is not the key's root: try {@code next}. */
    record Redirect(Hop next) implements Message {
    }

    /** The receiver could not do it: storage failed, it was overloaded or closing. */
    record Failure(DhtException.Reason reason, String text) implements Message {
    }
}
