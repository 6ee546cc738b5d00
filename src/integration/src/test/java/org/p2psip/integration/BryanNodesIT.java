package org.p2psip.integration;

/**
 * {@link SharedBindingsIT} on four peers of the SIP-based DHT after Bryan's draft (SIP
 * 26100-26103, the callee's UAS on 26110), whose ring is kept with REGISTERs through the same
 * containers that serve the users. `up` returns once every node serves its range of the ring (a
 * Bryan node answers its OPTIONS probe 503 until then), so the checks start on a formed ring.
 * 100 REGISTER/s through one node: each costs that node a get and a put through the containers
 * (three in four of them a peer REGISTER); at 200/s, four cold JVMs and SIPp on a 2-core machine
 * answered a quarter of them 503 after the 2 s DHT deadline.
 */
@Matrix
class BryanNodesIT extends SharedBindingsIT {

    BryanNodesIT() {
        super("bryan", 26100, 2_000, 100);
    }
}
