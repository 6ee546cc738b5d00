package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * One cold Chord node offered far more than it can carry, then ordinary load: it must answer
 * again. Before the stack's receive buffers were bounded (deploy/p2psip_deploy/nodefolder.py,
 * MAX_MESSAGE_SIZE and CONGESTION_CONTROL_TIMEOUT) this burst filled the heap with queued
 * datagrams; the out-of-memory error ended the container's UDP reader and the node never
 * answered again.
 */
class OverloadIT extends DeployedNodes {

    /** The container needs up to half a minute to work off a collapse (docs/container.md, "Overload"). */
    private static final Duration RECOVERY = Duration.ofSeconds(90);

    OverloadIT() {
        super("overload", "chord", 25270, 1);
        // deploy/p2psip's default heap: the stack's queue of datagrams may hold about 3 s of the
        // burst (CONGESTION_CONTROL_TIMEOUT 1 s, checked every 2 s) at 16 KiB each, about 390 MB
        // at 8,000/s, beside the node's own data; with 512 MB the heap ran out in one CI run of
        // several, the UDP reader died with it and the node never answered again
        deployment.withHeap("1g").withDefaults().withSetting("p2psip.warmup.timeout", "5s"); // the intake's defaults; a cold node is the point
    }

    @Test
    void coldNodeAnswersAgainAfterABurstFarAboveItsCeiling() throws IOException {
        sipp.register(deployment.node(0), 80_000, 5_000_000, 8_000); // not judged: most of it is refused or lost

        int code = sipp.untilPassed(RECOVERY, () -> sipp.register(deployment.node(0), 1000, 0, 200));

        assertEquals(0, code, "after the burst the node did not answer 1,000 REGISTERs at 200/s within "
                + RECOVERY.toSeconds() + " s; " + sipp.where());
        assertFalse(Files.readString(deployment.consoleLog(0)).contains("OutOfMemoryError"),
                "the node ran out of heap during the burst; see " + deployment.consoleLog(0));
    }
}
