package org.p2psip.dht.bryan;

import java.util.Arrays;

/**
 * The sequences accepted from one life of one sender: the highest, and which of the {@link #REACH}
 * sequences up to it were seen, as a bitmap that slides with the highest. Requests arrive a little
 * out of order (the container serves them on several threads, UDP reorders), so a sequence below
 * the highest is still accepted once; one below the bitmap cannot be told from a replay and is
 * refused as too old. Not thread-safe.
 */
final class SequenceWindow {

    /**
     * Sequences the bitmap reaches below the highest, 1 KiB per sender. The sequence counts every
     * request a peer signs, to any target; a loaded peer signs a few thousand a second, and one
     * overtaken by more than this many was most likely given up by its sender already (a peer
     * REGISTER's deadline is a second).
     */
    static final int REACH = 8192;

    enum Verdict { NEW, SEEN, TOO_OLD }

    /** Bit {@code s mod REACH} is sequence {@code s}; advancing the highest clears the bits it lets go. */
    private final long[] seen = new long[REACH / Long.SIZE];
    private long highest;

    SequenceWindow(long first) {
        highest = first;
        mark(first);
    }

    /** Whether {@code sequence} is new, and if so remembers it; SEEN and TOO_OLD change nothing. */
    Verdict accept(long sequence) {
        if (sequence > highest) {
            advanceTo(sequence);
            mark(sequence);
            return Verdict.NEW;
        }
        if (sequence <= highest - REACH) {
            return Verdict.TOO_OLD;
        }
        if (marked(sequence)) {
            return Verdict.SEEN;
        }
        mark(sequence);
        return Verdict.NEW;
    }

    long highest() {
        return highest;
    }

    private void advanceTo(long sequence) {
        if (sequence - highest >= REACH) {
            Arrays.fill(seen, 0L);
        } else {
            for (long s = highest + 1; s <= sequence; s++) {
                seen[word(s)] &= ~bit(s); // the slot held s - REACH, now out of reach
            }
        }
        highest = sequence;
    }

    private void mark(long sequence) {
        seen[word(sequence)] |= bit(sequence);
    }

    private boolean marked(long sequence) {
        return (seen[word(sequence)] & bit(sequence)) != 0;
    }

    private static int word(long sequence) {
        return (int) ((sequence & (REACH - 1)) >>> 6);
    }

    private static long bit(long sequence) {
        return 1L << (sequence & 63);
    }
}
