package org.p2psip.integration;

/**
 * {@link SharedBindingsIT} on four peers of the SIP-based DHT after Bryan's draft (SIP
 * 26100-26103, the callee's UAS on 26110), whose ring is kept with REGISTERs through the same
 * containers that serve the users. `up` returns once every node serves its range of the ring (a
 * Bryan node answers its OPTIONS probe 503 until then), so the checks start on a formed ring.
 * 200 REGISTER/s through one node, as for the other backends: each costs that node a put, three
 * in four of them routed to another peer in a batch of operations (before batching, four cold
 * JVMs on 2 cores answered a quarter of them 503 at that rate, and this test drove 100/s).
 * Its peers take one place each (Bryan's default): a deployment of 64 places each does not yet
 * answer every registration, so the even share is checked on Chord only (ChordNodesIT).
 */
class BryanNodesIT extends SharedBindingsIT {

    BryanNodesIT() {
        super("bryan", 26100, 1_000, 200);
    }

    @Override
    protected boolean restartInDefaultRun() {
        return false; // the matrix run restarts it: the default run has Chord's and Bamboo's restarts
    }
}
