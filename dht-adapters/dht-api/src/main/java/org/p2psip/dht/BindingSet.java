package org.p2psip.dht;

import java.util.List;
import java.util.Objects;

/**
 * Everything stored under one address-of-record: its bindings, the version the store gave the
 * record, and how long the record itself is kept. Immutable.
 *
 * <p>The version makes updates atomic per AOR without locks across nodes: a writer reads the set,
 * computes the next one and {@link Dht#put puts} it carrying the version it read; the store
 * accepts the put only if that is still the stored version (compare-and-set), and the stored
 * version becomes one more. Version 0 means "no record".
 *
 * <p>The record outlives its bindings until {@code retainUntil}, so that the registrar can tell
 * an AOR whose bindings expired (480) from one never registered (404).
 *
 * @param aor         the address-of-record
 * @param version     0 for an absent record; otherwise the store's version of it
 * @param retainUntil absolute time (ms since the epoch) after which the store may forget the record
 * @param bindings    the bindings; a store returns only those still live at the time of reading
 */
public record BindingSet(String aor, long version, long retainUntil, List<Binding> bindings) {

    public BindingSet {
        Objects.requireNonNull(aor, "aor");
        bindings = List.copyOf(bindings);
        if (version < 0) {
            throw new IllegalArgumentException("version must not be negative, got " + version);
        }
        for (Binding b : bindings) {
            if (!b.aor().equals(aor)) {
                throw new IllegalArgumentException("binding of " + b.aor() + " in the set of " + aor);
            }
        }
    }

    /** The record of an AOR the store does not know. */
    public static BindingSet absent(String aor) {
        return new BindingSet(aor, 0, 0, List.of());
    }

    public boolean exists() {
        return version > 0;
    }

    /** The same record with only the bindings still live at {@code nowMillis}. */
    public BindingSet liveAt(long nowMillis) {
        if (bindings.stream().allMatch(b -> b.isLiveAt(nowMillis))) {
            return this;
        }
        return new BindingSet(aor, version, retainUntil,
                bindings.stream().filter(b -> b.isLiveAt(nowMillis)).toList());
    }

    /** The next record a writer proposes: new bindings, same version (the one it read). */
    public BindingSet next(List<Binding> newBindings, long newRetainUntil) {
        return new BindingSet(aor, version, newRetainUntil, newBindings);
    }

    /** The record as the store keeps it after accepting a put of this one. */
    public BindingSet stored() {
        return new BindingSet(aor, version + 1, retainUntil, bindings);
    }
}
