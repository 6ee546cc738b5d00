package org.p2psip.integration;

/**
 * {@link ReadinessIT} on four Chord nodes (front 25400, nodes 25401-25404). In the matrix run:
 * four nodes and the front on two cores, up and the load right after it take 70-90 s.
 */
@Matrix
class ChordReadinessIT extends ReadinessIT {

    ChordReadinessIT() {
        super("chord", 25400);
    }
}
