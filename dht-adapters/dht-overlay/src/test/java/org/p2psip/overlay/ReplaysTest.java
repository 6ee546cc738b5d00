package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Counters;
import org.p2psip.overlay.Replays.Verdict;

/** The replay rule on its own, with a clock moved by hand. */
class ReplaysTest {

    private static final Duration WINDOW = Duration.ofSeconds(30);
    private static final long W = WINDOW.toMillis();
    private final SettableClock clock = new SettableClock(1_700_000_000_000L);
    private final Counters counters = new Counters();
    private final Replays replays = new Replays(WINDOW, clock, counters);

    private Verdict admit(long channel, long sequence, long sentAt) {
        return replays.admit(new Stamp(sentAt, channel, sequence));
    }

    private long refused() {
        return counters.get(AbstractTransport.REPLAYS_REFUSED);
    }

    @Test
    void aFrameSentWithinTheWindowEitherSideIsAcceptedAndOneBeyondIsRefused() {
        long now = clock.millis();
        assertEquals(Verdict.FRESH, admit(1, 1, now - W), "a window old, exactly");
        assertEquals(Verdict.FRESH, admit(2, 1, now + W), "a window ahead, exactly");
        assertEquals(Verdict.OUTSIDE_WINDOW, admit(3, 1, now - W - 1), "older than the window");
        assertEquals(Verdict.OUTSIDE_WINDOW, admit(4, 1, now + W + 1), "further ahead than the window");
        assertEquals(Verdict.OUTSIDE_WINDOW, admit(5, 1, Long.MIN_VALUE), "the oldest time a stamp can say");
        assertEquals(3, refused(), "each refusal counted");
    }

    @Test
    void aSequenceNotAboveItsChannelsHighestIsRefused() {
        long now = clock.millis();
        assertEquals(Verdict.FRESH, admit(7, 1, now));
        assertEquals(Verdict.NOT_NEWER, admit(7, 1, now), "the same frame again");
        assertEquals(Verdict.FRESH, admit(7, 3, now), "a gap is fine: a frame the encoder failed to write");
        assertEquals(Verdict.NOT_NEWER, admit(7, 2, now), "an earlier one, late");
        assertEquals(Verdict.FRESH, admit(8, 1, now), "another channel has its own sequence");
        assertEquals(2, refused());
    }

    @Test
    void framesOfManyChannelsInterleavedAreAllAccepted() {
        var random = new Random(42);
        List<Long> order = new ArrayList<>();
        long[] channels = random.longs(300).toArray();
        for (long channel : channels) {
            for (int i = 0; i < 40; i++) {
                order.add(channel);
            }
        }
        Collections.shuffle(order, random); // each channel's frames keep their order, the channels interleave
        var next = new java.util.HashMap<Long, Long>();
        for (long channel : order) {
            long sequence = next.merge(channel, 1L, Long::sum);
            assertEquals(Verdict.FRESH, admit(channel, sequence, clock.millis()), "channel " + channel + " #" + sequence);
            clock.advance(Duration.ofMillis(1));
        }
        assertEquals(0, refused());
    }

    @Test
    void aChannelSilentForLongerThanTheWindowIsForgottenAndItsOldFramesStayRefused() {
        long then = clock.millis();
        for (long sequence = 1; sequence <= 5; sequence++) {
            assertEquals(Verdict.FRESH, admit(11, sequence, then));
        }
        clock.advance(WINDOW.plus(WINDOW.dividedBy(4)).plusMillis(1));
        assertEquals(Verdict.FRESH, admit(12, 1, clock.millis()), "another channel's frame, which sweeps");
        assertEquals(1, replays.remembered(), "channel 11 is forgotten, channel 12 remembered");
        for (long sequence = 1; sequence <= 6; sequence++) {
            assertEquals(Verdict.OUTSIDE_WINDOW, admit(11, sequence, then), "channel 11's frame #" + sequence);
        }
        assertEquals(6, refused());
    }

    @Test
    void aChannelWhoseSenderClockRunsAheadIsRememberedUntilItsFramesAreStale() {
        long ahead = clock.millis() + W;
        assertEquals(Verdict.FRESH, admit(21, 1, ahead));
        clock.advance(WINDOW.plus(WINDOW.dividedBy(2))); // silent longer than the window, by this node's clock
        assertEquals(Verdict.FRESH, admit(22, 1, clock.millis()), "sweeps");
        assertEquals(Verdict.NOT_NEWER, admit(21, 1, ahead), "still within the window by its stamp: remembered");
    }

    @Test
    void memoryHoldsOnlyTheChannelsOfAboutTheLastWindow() {
        int perSecond = 100;
        for (int second = 0; second < 300; second++) {
            for (int i = 0; i < perSecond; i++) {
                assertEquals(Verdict.FRESH, admit(second * 1000L + i, 1, clock.millis()));
            }
            clock.advance(Duration.ofSeconds(1));
            int bound = perSecond * (int) (WINDOW.toSeconds() + WINDOW.toSeconds() / 4 + 2);
            assertTrue(replays.remembered() <= bound, "after " + second + " s: " + replays.remembered()
                    + " channels remembered, expected at most " + bound);
        }
    }
}
