package org.p2psip.dht.hazelcast;

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

    @Override
    public IdentifiedDataSerializable create(int classId) {
        return switch (classId) {
            case COMPARE_AND_SET -> new CompareAndSet();
            case COMPARE_AND_REMOVE -> new CompareAndRemove();
            default -> null; // Hazelcast reports an unknown class id itself
        };
    }
}
