package org.p2psip.integration;

/** {@link SharedBindingsIT} on a Chord ring of four nodes (SIP 25100-25103). */
class ChordNodesIT extends SharedBindingsIT {

    ChordNodesIT() {
        super("chord", 25100, 4_000, 400);
    }
}
