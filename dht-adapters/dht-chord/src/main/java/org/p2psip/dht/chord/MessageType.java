package org.p2psip.dht.chord;

/**
 * Chord's message types on the overlay transport; each request has one answer. Codes are on the
 * wire: never renumber, only add.
 */
final class MessageType {
    /** key:id -> done:u8, nodes: the successor list of the key's predecessor (done) or closer nodes (not done). */
    static final int FIND = 1;
    /** () -> hasPredecessor:u8, [predecessor:node], successors:nodes. Stabilize's question. */
    static final int STATE = 2;
    /**
     * node, fresh:u8 -> (). "I might be your predecessor." Fresh: the sender joined with nothing
     * stored (new, or restarted on its address) and waits for {@link #HANDED} before it owns a key.
     */
    static final int NOTIFY = 3;
    /** () -> (). Check-predecessor's probe. */
    static final int PING = 4;
    /** aor:str -> status:u8, record:blob (empty when absent). */
    static final int GET = 5;
    /** set:blob (BindingCodec) -> status:u8. Compare-and-set at the owner. */
    static final int PUT = 6;
    /** aor:str, version:u64 -> status:u8. */
    static final int REMOVE = 7;
    /** count:u64, records -> (). Copies for replicas and hand-overs; newest stamp wins. */
    static final int STORE = 8;
    /** node, hasPredecessor:u8, [predecessor], successors:nodes -> (). A graceful leave. */
    static final int LEAVING = 9;
    /** () -> (). "Everything of yours I held is with you now": the end of a fresh node's hand-over. */
    static final int HANDED = 10;
    /**
     * aor:str, change:blob -> status:u8, body:blob. The owner applies the change with its
     * OwnerRules: OK with the record written, UNCHANGED with the record as it stands, the body
     * record:blob then the rules' answer for the change's maker, answer:blob.
     */
    static final int UPDATE = 11;
    /**
     * large:u8, members -> large:u8, members. A gossip round's swap of the views of the whole ring
     * (dht-ring's Members); large: the sender keeps no view, the overlay being too large.
     */
    static final int VIEW = 12;
    /**
     * count:u16, (target:id, store:blob)* -> taken:u8 per store. Several STOREs for places of one
     * node in one frame (NodeCopies); each store is a STORE's payload for its target place.
     */
    static final int COPIES = 13;

    /** Status of GET/PUT/REMOVE answers; NOT_OWNER's record is the owner as the answering node's view names it (node), or empty. */
    static final int OK = 0;
    static final int CONFLICT = 1;
    static final int NOT_OWNER = 2;
    /** A write stored at the owner that a replica did not take: not acknowledged (it may still be read). */
    static final int UNREPLICATED = 3;
    /** An UPDATE whose rules wrote nothing; the record as it stands follows. */
    static final int UNCHANGED = 4;
    /** An UPDATE the owner could not read: nothing written. */
    static final int MALFORMED = 5;

    private MessageType() {
    }
}
