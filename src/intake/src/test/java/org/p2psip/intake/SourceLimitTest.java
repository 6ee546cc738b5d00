package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** Requests per second per source: the window, other sources, forgetting, no limit. */
class SourceLimitTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aSourceIsOverItsLimitForTheRestOfTheSecondOnly() throws Exception {
        var limit = new SourceLimit(2);
        InetAddress a = InetAddress.getByName("127.0.0.2");
        InetAddress b = InetAddress.getByName("127.0.0.3");
        assertFalse(limit.over(a, 10 * SECOND));
        assertFalse(limit.over(a, 10 * SECOND + 1));
        assertTrue(limit.over(a, 10 * SECOND + 2));
        assertFalse(limit.over(b, 10 * SECOND + 3), "another source has its own count");
        assertFalse(limit.over(a, 11 * SECOND), "a new second");
    }

    @Test
    void sourcesSilentForTwoSecondsAreForgotten() throws Exception {
        var limit = new SourceLimit(5);
        limit.over(InetAddress.getByName("127.0.0.2"), 10 * SECOND);
        limit.over(InetAddress.getByName("127.0.0.3"), 11 * SECOND);
        assertEquals(2, limit.sources());
        limit.over(InetAddress.getByName("127.0.0.3"), 12 * SECOND);
        assertEquals(1, limit.sources());
    }

    @Test
    void zeroIsNoLimit() throws Exception {
        var limit = new SourceLimit(0);
        for (int i = 0; i < 1000; i++) {
            assertFalse(limit.over(InetAddress.getByName("127.0.0.2"), SECOND));
        }
        assertEquals(0, limit.sources());
    }
}
