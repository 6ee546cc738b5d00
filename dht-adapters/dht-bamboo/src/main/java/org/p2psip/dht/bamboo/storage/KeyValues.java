package org.p2psip.dht.bamboo.storage;

import java.util.List;
import org.p2psip.dht.ring.Id;

/** A key with every value it holds, tombstones included: the unit of replication. Immutable. */
public record KeyValues(Id key, List<StoredValue> values) {

    public KeyValues {
        values = List.copyOf(values);
    }
}
