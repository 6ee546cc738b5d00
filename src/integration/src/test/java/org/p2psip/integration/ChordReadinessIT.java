package org.p2psip.integration;

/**
 * {@link ReadinessIT} on four Chord nodes (front 25400, nodes 25401-25404), in the default run: the
 * defaults of the backend most deployments run. Four nodes and the front on two cores, up and the
 * load right after it take about a minute.
 */
class ChordReadinessIT extends ReadinessIT {

    ChordReadinessIT() {
        super("chord", 25400);
    }
}
