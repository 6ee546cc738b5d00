package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * One Chord node on a deliberately small heap, behind a front, offered through the front several
 * times what the node can carry for a minute, then ordinary load. Every request the node keeps
 * costs heap until Timer J (32 s), so such a flood, unchecked, fills its heap with transactions and
 * queued datagrams: the node collects itself to death and dies of OutOfMemoryError with every
 * request it took unanswered. It must instead answer every REGISTER, 200 or 503 with Retry-After
 * (src/intake: the queue of compact copies bounded in bytes, admission that watches the heap),
 * stay up, and serve at once afterwards; and the front, which keeps no more than its bounded
 * tables (src/front), must pass it all through and stay up too. The node sees the flood from the
 * front's address as it would from the phones': its intake judges each request alike.
 */
class OverloadIT extends DeployedNodes {

    private static final int FLOOD_RATE = 6_000;
    /**
     * The phones of the flood, registering again and again (an avalanche after an outage): what
     * the flood costs is transactions, not storage. As many distinct AORs would fill a heap this
     * small with their bindings, and a node whose heap is full of bindings rightly refuses more.
     */
    private static final int PHONES = 20_000;
    private static final Duration FLOOD = Duration.ofSeconds(60);
    /** Long enough for the client retransmissions of the flood's last seconds to be answered. */
    private static final Duration RECOVERY = Duration.ofSeconds(30);
    private static final int FRONT_PORT = 25290;

    OverloadIT() {
        super("overload", "chord", 25270, 1);
        // a cold node (a short warm-up) with the intake's defaults: what a fresh deployment meets
        deployment.withHeap("256m").withDefaults().withSetting("p2psip.warmup.timeout", "5s")
                .withFront("rr", FRONT_PORT).withSipTrace(false);
    }

    @Test
    void aSmallHeapSurvivesAMinuteFarPastItsCapacityAnsweringEveryRequestAndServesRightAfter() throws IOException {
        int flood = sipp.flood(deployment.front(), FLOOD_RATE * (int) FLOOD.toSeconds(), PHONES, 7_000_000, FLOOD_RATE);

        assertEquals(0, flood, "a REGISTER of the flood got neither 200 nor 503 (the node or the front went silent "
                + "or died); " + sipp.where() + ", " + deployment.consoleLog(0) + " and " + deployment.frontLog());
        int code = sipp.untilPassed(RECOVERY, () -> sipp.register(deployment.front(), 2_000, 0, 500));
        assertEquals(0, code, "after the flood the node did not answer 2,000 REGISTERs at 500/s through the front "
                + "all 200 within " + RECOVERY.toSeconds() + " s; " + sipp.where());
        assertFalse(Files.readString(deployment.consoleLog(0)).contains("OutOfMemoryError"),
                "the node ran out of heap during the flood; see " + deployment.consoleLog(0));
        assertFalse(Files.readString(deployment.frontLog()).contains("OutOfMemoryError"),
                "the front ran out of heap during the flood; see " + deployment.frontLog());
    }
}
