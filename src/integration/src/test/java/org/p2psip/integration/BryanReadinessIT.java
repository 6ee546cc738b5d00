package org.p2psip.integration;

/** {@link ReadinessIT} on four Bryan nodes (front 25420, nodes 25421-25424). */
@Matrix
class BryanReadinessIT extends ReadinessIT {

    BryanReadinessIT() {
        super("bryan", 25420);
    }
}
