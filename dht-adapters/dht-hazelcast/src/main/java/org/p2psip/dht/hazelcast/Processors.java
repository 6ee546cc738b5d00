package org.p2psip.dht.hazelcast;

import org.p2psip.dht.OwnerRules;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

/**
 * Makes this module's entry processors from the ids Hazelcast reads off the wire, so a member
 * deserialises them without reflection or a class name. Registered in every member's
 * serialisation config; every member of a cluster must run the same ids. Stateless; thread-safe.
 */
final class Processors implements DataSerializableFactory {

    /** Any positive number no other factory of the cluster uses; Hazelcast's own are negative. */
    static final int FACTORY_ID = 0x50325053; // "P2PS"
    static final int COMPARE_AND_SET = 1;
    static final int COMPARE_AND_REMOVE = 2;
    static final int APPLY_CHANGE = 3;
    static final int SET_STORED = 4;

    private final OwnerRules ownerRules;

    /** @param ownerRules the member's rules, for the changes it applies as a partition's owner */
    Processors(OwnerRules ownerRules) {
        this.ownerRules = ownerRules;
    }

    @Override
    public IdentifiedDataSerializable create(int classId) {
        return switch (classId) {
            case COMPARE_AND_SET -> new CompareAndSet();
            case COMPARE_AND_REMOVE -> new CompareAndRemove();
            case APPLY_CHANGE -> new ApplyChange(ownerRules);
            case SET_STORED -> new ApplyChange.SetStored();
            default -> null; // Hazelcast reports an unknown class id itself
        };
    }
}
