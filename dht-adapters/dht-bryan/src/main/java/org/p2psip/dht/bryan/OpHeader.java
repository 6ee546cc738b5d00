package org.p2psip.dht.bryan;

import java.util.Locale;
import java.util.regex.Pattern;
import org.p2psip.dht.ring.Id;

/**
 * The DHT-Op header: what a peer REGISTER asks of the resource (or ring position) it names.
 * Absent on the draft's own peer registrations (join, refresh, leave). Immutable.
 * <pre>DHT-Op: get;key=RESOURCE-ID[;around=PEER-ID] | put;key=RESOURCE-ID;version=N
 *        | remove;key=RESOURCE-ID;version=N | update;key=RESOURCE-ID | find;key=ID | copy | batch</pre>
 *
 * @param key     the resource-ID (SHA-1 of the AOR) or, for find, any ring position; null for copy and batch
 * @param version the compare-and-set version of put and remove; -1 otherwise
 * @param around  for a get only: a peer that did not answer it, which the asker took for the
 *                key's owner; a peer whose predecessor that is answers from its copy if it holds
 *                one (see Handlers). Null otherwise.
 */
record OpHeader(Op op, Id key, long version, Id around) {

    static final String NAME = "DHT-Op";
    private static final Pattern KEY = Pattern.compile("[0-9a-fA-F]{40}");

    enum Op {
        GET, PUT, REMOVE, FIND, COPY, BATCH, HANDED, UPDATE;

        boolean routed() {
            return this != COPY && this != BATCH && this != HANDED;
        }

        /** Whether it may travel in a batch: the users' operations, not the ring's own finds. */
        boolean batched() {
            return this == GET || this == PUT || this == REMOVE || this == UPDATE;
        }

        boolean versioned() {
            return this == PUT || this == REMOVE;
        }
    }

    OpHeader {
        if (op.routed() != (key != null) || op.versioned() != (version >= 0) || (around != null && op != Op.GET)) {
            throw new IllegalArgumentException(op + " with key " + key + ", version " + version + ", around " + around);
        }
    }

    OpHeader(Op op, Id key, long version) {
        this(op, key, version, null);
    }

    /** This get, naming {@code silent} as a peer that did not answer it. */
    OpHeader around(Id silent) {
        return new OpHeader(op, key, version, silent);
    }

    String print() {
        return op.name().toLowerCase(Locale.ROOT) + (key == null ? "" : ";key=" + key)
                + (version < 0 ? "" : ";version=" + version) + (around == null ? "" : ";around=" + around);
    }

    static OpHeader parse(String text) {
        HeaderValue v = HeaderValue.parse(NAME, text, false);
        Op op;
        try {
            op = Op.valueOf(v.head().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new MalformedHeaderException(NAME, text, "unknown operation " + v.head());
        }
        Id key = null;
        if (op.routed()) {
            String hex = v.required(NAME, text, "key");
            if (!KEY.matcher(hex).matches()) {
                throw new MalformedHeaderException(NAME, text, "key must be 40 hex digits");
            }
            key = Id.parse(hex.toLowerCase(Locale.ROOT));
        }
        long version = op.versioned() ? v.number(NAME, text, "version", Long.MAX_VALUE, -2) : -1;
        if (version == -2) {
            throw new MalformedHeaderException(NAME, text, "lacks the version parameter");
        }
        Id around = null;
        String silent = v.params().get("around");
        if (silent != null) {
            if (!KEY.matcher(silent).matches()) {
                throw new MalformedHeaderException(NAME, text, "around must be 40 hex digits");
            }
            around = Id.parse(silent.toLowerCase(Locale.ROOT));
        }
        for (String name : v.params().keySet()) {
            boolean allowed = (name.equals("key") && op.routed()) || (name.equals("version") && op.versioned())
                    || (name.equals("around") && op == Op.GET);
            if (!allowed) {
                throw new MalformedHeaderException(NAME, text, "parameter " + name + " does not belong to " + v.head());
            }
        }
        return new OpHeader(op, key, version, around);
    }
}
