package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Counters;
import org.p2psip.dht.contract.MutableClock;

/**
 * The replay rule on its own, with a clock moved by hand: fresh and new is accepted; seen before,
 * outside the window or below the bitmap is refused, counted and changes nothing; silent senders
 * are forgotten without letting their old requests in again.
 */
class ReplayGuardTest {

    private static final Duration WINDOW = Duration.ofSeconds(30);
    private static final String A = "127.0.0.1:25200";
    private static final String B = "127.0.0.1:25201";
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final Counters counters = new Counters();
    private final ReplayGuard guard = new ReplayGuard(clock, WINDOW, counters);

    private StampHeader stamp(long epoch, long sequence, Duration sentFromNow) {
        return new StampHeader(clock.millis() + sentFromNow.toMillis(), epoch, sequence);
    }

    @Test
    void aStampIsAcceptedOnceThenRefusedAsReplayed() throws Refusal {
        StampHeader first = stamp(1, 1, Duration.ZERO);
        guard.admit(A, first);
        Refusal again = assertThrows(Refusal.class, () -> guard.admit(A, first));
        assertEquals(403, again.response().status());
        assertTrue(again.getMessage().startsWith("Replayed Request"), again.getMessage());
        assertEquals(1, counters.get(ReplayGuard.REPLAYED));
        guard.admit(B, first); // another sender's sequences are its own
    }

    @Test
    void aStampSentJustWithinTheWindowEitherWayIsAcceptedAndJustOutsideRefusedAsStale() throws Refusal {
        guard.admit(A, stamp(1, 1, WINDOW.negated()));
        guard.admit(A, stamp(1, 2, WINDOW));
        for (Duration off : new Duration[] {WINDOW.plusMillis(1).negated(), WINDOW.plusMillis(1)}) {
            Refusal stale = assertThrows(Refusal.class, () -> guard.admit(A, stamp(1, 3, off)), "sent " + off + " from now");
            assertTrue(stale.getMessage().startsWith("Stale Request"), stale.getMessage());
        }
        assertEquals(2, counters.get(ReplayGuard.STALE));
        guard.admit(A, stamp(1, 3, Duration.ZERO)); // the refused ones did not take sequence 3
    }

    @Test
    void aSequenceBelowTheBitmapIsRefusedAsStaleEvenWhenFresh() throws Refusal {
        guard.admit(A, stamp(1, 1 + SequenceWindow.REACH, Duration.ZERO));
        guard.admit(A, stamp(1, 2, Duration.ZERO));
        Refusal old = assertThrows(Refusal.class, () -> guard.admit(A, stamp(1, 1, Duration.ZERO)));
        assertTrue(old.getMessage().startsWith("Stale Request"), old.getMessage());
    }

    @Test
    void aNewEpochOfAKnownSenderStartsItsOwnSequences() throws Refusal {
        guard.admit(A, stamp(1, 500, Duration.ZERO));
        guard.admit(A, stamp(2, 1, Duration.ZERO));
        guard.admit(A, stamp(2, 2, Duration.ZERO));
        assertThrows(Refusal.class, () -> guard.admit(A, stamp(1, 500, Duration.ZERO)), "the old life's replay");
    }

    @Test
    void sendersSilentForAWindowAreForgottenAndTheirRequestsStayRefused() throws Refusal {
        StampHeader early = stamp(1, 1, WINDOW); // a sender whose clock is a whole window ahead
        guard.admit(A, early);
        guard.admit(B, stamp(7, 1, Duration.ZERO));
        clock.advance(WINDOW.plusMillis(1));
        guard.admit(B, stamp(7, 2, Duration.ZERO));
        assertEquals(2, guard.size(), "A's newest request is still inside the window: it is kept");
        clock.advance(WINDOW);
        guard.admit(B, stamp(7, 3, Duration.ZERO));
        assertEquals(1, guard.size(), "A's every request now lies outside the window: forgotten");
        Refusal replay = assertThrows(Refusal.class, () -> guard.admit(A, early));
        assertTrue(replay.getMessage().startsWith("Stale Request"), replay.getMessage());
    }
}
