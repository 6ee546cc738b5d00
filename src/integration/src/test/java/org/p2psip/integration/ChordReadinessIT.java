package org.p2psip.integration;

/** {@link ReadinessIT} on four Chord nodes (front 25400, nodes 25401-25404). */
class ChordReadinessIT extends ReadinessIT {

    ChordReadinessIT() {
        super("chord", 25400);
    }
}
