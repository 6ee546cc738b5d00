package org.p2psip.integration;

import org.junit.jupiter.api.Disabled;

/**
 * {@link ReadinessIT} on four Chord nodes (front 25400, nodes 25401-25404). In the matrix run:
 * four nodes warming up on two cores take four minutes before the test starts, past the default
 * run's budget.
 */
@Matrix
@Disabled("Four Chord nodes and the front on two cores shed part of the load in the first seconds"
        + " after up: at 500+500 REGISTER/s 468 of 2,000 direct got 503 Overloaded, at 250+250 9 direct"
        + " and 129 through the front (2026-11-26). Warm, a minute later, 500+500 passes with the cores"
        + " at 180%: a Chord REGISTER costs about 1.8 ms of CPU across the JVMs, and the front, started"
        + " last and never warmed, takes most of a core for its first seconds. Kept to show the gap;"
        + " the other backends pass")
class ChordReadinessIT extends ReadinessIT {

    ChordReadinessIT() {
        super("chord", 25400);
    }
}
