package org.p2psip.integration;

/**
 * {@link ReadinessIT} on four Chord nodes (front 25400, nodes 25401-25404). In the matrix run:
 * four nodes warming up on two cores take four minutes before the test starts, past the default
 * run's budget; AvalancheIT there starts its load the moment two warmed nodes answer.
 */
@Matrix
class ChordReadinessIT extends ReadinessIT {

    ChordReadinessIT() {
        super("chord", 25400);
    }
}
