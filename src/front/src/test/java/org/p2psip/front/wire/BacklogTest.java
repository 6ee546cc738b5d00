package org.p2psip.front.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

public class BacklogTest {

    private static final long W = Backlog.WINDOW_NANOS;
    private final Backlog backlog = new Backlog();
    private long now;

    /** One window in which the loop spent {@code utilisation} of the time reading a full load of datagrams. */
    private void window(double utilisation) {
        window(utilisation, Backlog.MIN_DATAGRAMS);
    }

    private void window(double utilisation, int datagrams) {
        long start = now;
        for (int i = 0; i < datagrams - 1; i++) { // and one more in the read that ends the window
            backlog.reading(start);
        }
        backlog.readDone(start + (long) (utilisation * W));
        now = start + W;
        backlog.reading(now);
        backlog.readDone(now); // the window ends with the next read
    }

    /** Drives the backlog to a loop that was busy all the time for {@code windows} windows. */
    public static void behind(Backlog backlog, int windows) {
        for (int i = 0; i < windows; i++) {
            for (int d = 0; d < Backlog.MIN_DATAGRAMS; d++) {
                backlog.reading(i * W);
            }
            backlog.readDone((i + 1) * W);
        }
    }

    @Test
    void aLoopThatKeepsUpShedsNothing() {
        for (int i = 0; i < 100; i++) {
            window(0.6);
        }
        assertEquals(0.0, backlog.share());
        assertFalse(backlog.shed());
    }

    @Test
    void aLoopSlowOnAFewDatagramsIsColdOrPausedNotBehind() {
        for (int i = 0; i < 10; i++) {
            window(1.0, Backlog.MIN_DATAGRAMS - 1);
        }
        assertEquals(0.0, backlog.share(), "a front just started sheds its first requests at a trickle otherwise");
    }

    @Test
    void theShareGrowsWhileTheLoopIsBusyAndFallsOnceItKeepsUpAgain() {
        for (int i = 0; i < 4; i++) {
            window(0.95);
        }
        assertEquals(4 * Backlog.STEP, backlog.share(), 1e-9);
        window(0.8); // between the bounds: the share holds
        assertEquals(4 * Backlog.STEP, backlog.share(), 1e-9);
        window(0.5);
        assertEquals(3 * Backlog.STEP, backlog.share(), 1e-9);
    }

    @Test
    void aLoopBusyAllTheTimeEndsBySheddingEveryNewRequestAndAQuietSpellEndsIt() {
        behind(backlog, 40);
        assertEquals(1.0, backlog.share());
        assertTrue(backlog.shed());
        backlog.reading(41 * W);
        backlog.readDone(41 * W + 1);
        backlog.reading(61 * W); // twenty windows without a read: the share falls by twenty steps
        backlog.readDone(61 * W + 1);
        assertEquals(0.0, backlog.share(), 1e-9);
    }

    @Test
    void aBusyLoopWhoseSocketHoldsLittleIsSlowNotBehind() {
        long capacity = 1 << 20;
        long[] queued = {capacity / 10};
        var judged = new Backlog(() -> queued[0], capacity);
        busy(judged, 10);
        assertEquals(0.0, judged.share(), "a cold or starved loop whose socket still holds everything sheds nothing");
        queued[0] = capacity / 2;
        busy(judged, 3);
        assertEquals(3 * Backlog.STEP, judged.share(), 1e-9, "a quarter of the buffer waiting: behind");
        queued[0] = capacity / 10;
        busy(judged, 2);
        assertEquals(Backlog.STEP, judged.share(), 1e-9, "busy, but the queue drained: the share falls");
    }

    /** {@code windows} windows from the test's clock on, in which the loop was busy all the time. */
    private void busy(Backlog judged, int windows) {
        for (int i = 0; i < windows; i++) {
            for (int d = 0; d < Backlog.MIN_DATAGRAMS; d++) {
                judged.reading(now);
            }
            now += W;
            judged.readDone(now);
        }
    }
}
