package org.p2psip.integration;

/** {@link ReadinessIT} on four Hazelcast nodes (front 25430, nodes 25431-25434). */
@Matrix
class HazelcastReadinessIT extends ReadinessIT {

    HazelcastReadinessIT() {
        super("hazelcast", 25430);
    }
}
