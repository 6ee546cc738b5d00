package org.p2psip.dht;

/**
 * What an AOR's record is after a change was applied where it is stored ({@link Dht#update}).
 *
 * @param record  the record as stored after the change: the one written, or when nothing was
 *                written the one found (live bindings only, {@link BindingSet#absent} when none)
 * @param written whether the change wrote {@code record}
 */
public record Updated(BindingSet record, boolean written) {
}
