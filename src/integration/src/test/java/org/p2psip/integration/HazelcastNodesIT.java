package org.p2psip.integration;

/** {@link SharedBindingsIT} on a Hazelcast cluster of four members (SIP 25120-25123). */
@Matrix
class HazelcastNodesIT extends SharedBindingsIT {

    HazelcastNodesIT() {
        super("hazelcast", 25120, 2_000, 200);
    }
}
