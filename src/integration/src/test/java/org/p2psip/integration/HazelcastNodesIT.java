package org.p2psip.integration;

/** {@link SharedBindingsIT} on a Hazelcast cluster of four members (SIP 25120-25123). */
class HazelcastNodesIT extends SharedBindingsIT {

    HazelcastNodesIT() {
        super("hazelcast", 25120, 1_000, 200);
    }

    @Override
    protected boolean restartInDefaultRun() {
        return false; // the matrix run restarts it: the default run has Chord's and Bamboo's restarts
    }
}
