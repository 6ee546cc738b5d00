package org.p2psip.integration;

/** {@link SharedBindingsIT} on a Bamboo overlay of four nodes, Berkeley DB JE on disk (SIP 25140-25143). */
class BambooNodesIT extends SharedBindingsIT {

    BambooNodesIT() {
        super("bamboo", 25140, 1_000, 200);
    }
}
