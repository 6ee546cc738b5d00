package org.p2psip.integration;

/** {@link ReadinessIT} on four Bamboo nodes (front 25410, nodes 25411-25414). */
@Matrix
class BambooReadinessIT extends ReadinessIT {

    BambooReadinessIT() {
        super("bamboo", 25410);
    }
}
