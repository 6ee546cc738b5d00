package org.p2psip.dht.ring.store;

/**
 * When the owner of an AOR last wrote one of its contacts, and whether that write removed it:
 * what lets two copies of a record that diverged (the two sides of a split ring, each with an
 * owner taking writes) merge contact by contact ({@link RecordMerge}) rather than one replacing the
 * other whole. A removal is kept until every copy of the binding it removed has expired, so that
 * an older copy cannot bring the binding back.
 *
 * @param contact      the contact URI, as in {@link org.p2psip.dht.Binding#contact}
 * @param at           the owner's clock when it wrote the contact (ms since the epoch)
 * @param removedUntil for a removal, until when it is kept; 0 for a contact present
 */
public record ContactWrite(String contact, long at, long removedUntil) {

    /**
     * The contact of a removal of every binding written before it ({@code Contact: *}, or the AOR
     * removed): no contact URI reads so.
     */
    public static final String EVERY = "*";

    public boolean removed() {
        return removedUntil != 0;
    }

    /** Whether this write decides the contact over {@code other}: the later one, a removal on a tie. */
    public boolean beats(ContactWrite other) {
        return at != other.at ? at > other.at : removed() && !other.removed();
    }
}
