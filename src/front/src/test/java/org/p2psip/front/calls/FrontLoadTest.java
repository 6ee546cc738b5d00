package org.p2psip.front.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The front's load from scripted CPU time, loop busy time and clock: a second per sample. */
class FrontLoadTest {

    private static final long SECOND = 1_000_000_000L;

    private long cpu;
    private long busy;
    private long wall = 7 * SECOND;
    private final FrontLoad load = new FrontLoad(() -> cpu, () -> busy, () -> wall, 2);

    private double second(double cpuCores, double busyShare) {
        cpu += (long) (cpuCores * SECOND);
        busy += (long) (busyShare * SECOND);
        wall += SECOND;
        return load.sample();
    }

    @Test
    void onCoresOfItsOwnTheCpuShareDecides() {
        assertEquals(0.8, second(1.6, 0.5), 1e-9, "1.6 of its 2 cores");
    }

    @Test
    void onSharedCoresALoopThatIsAlwaysBusyReadsAsSaturatedThoughItsCpuShareIsLow() {
        // two cores shared by the front and two nodes: the front gets about two thirds of a core
        assertEquals(1.0, second(0.66, 1.0), 1e-9);
        assertEquals(0.6, second(0.4, 0.6), 1e-9, "a loop busy 60% of the time waiting for a core or working");
    }

    @Test
    void eachSampleCoversOnlyTheTimeSinceThePreviousOne() {
        second(1.8, 1.0);
        assertEquals(0.1, second(0.2, 0.05), 1e-9);
    }

    @Test
    void noTimeGoneByGivesNothingAndACpuTheJvmCannotTellLeavesTheLoopsShare() {
        assertTrue(Double.isNaN(load.sample()), "no time since the start");
        var blind = new FrontLoad(() -> -1, () -> busy, () -> wall, 2);
        busy += SECOND / 4;
        wall += SECOND;
        assertEquals(0.25, blind.sample(), 1e-9);
    }
}
