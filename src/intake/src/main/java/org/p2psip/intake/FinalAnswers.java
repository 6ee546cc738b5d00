package org.p2psip.intake;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The final answers the node sent to requests other than INVITE over UDP, by branch, for as long
 * as RFC 3261 §17.2.2 says a retransmission of the request must get the answer again (Timer J,
 * 64 x T1). This is all a completed non-INVITE server transaction needs: the stack's own
 * transaction, with the container's session and messages behind it, kept 4.5 KB a request for
 * those 32 s and so capped the rate a heap holds, where the answer's bytes and address are a few
 * hundred. The node lets the stack end its transaction at once and answers retransmissions from here.
 *
 * <p>Kept in generations of a fixed length: an answer is found for at least its Timer J and at
 * most one generation longer, and forgetting a generation is dropping its arrays. Each generation
 * keeps its answers as bytes in a few large arrays ({@link AnswerSlab}), not as objects the
 * collector would trace and copy at every young collection for half a minute. Thread-safe.
 */
final class FinalAnswers {

    /** One answer: its bytes as sent, where to, and the method it answered (a CANCEL shares its INVITE's branch). */
    record Answer(String method, byte[] message, InetAddress address, int port) {
        InetSocketAddress to() {
            return new InetSocketAddress(address, port);
        }
    }

    private static final int GENERATIONS = 8;

    private final long generationNanos;
    private final AnswerSlab[] generations;
    private volatile long currentGeneration;

    /** @param keepNanos how long an answer is found at least: Timer J */
    FinalAnswers(long keepNanos, long now) {
        this.generationNanos = Math.max(1, keepNanos / GENERATIONS);
        this.generations = new AnswerSlab[GENERATIONS + 1];
        for (int i = 0; i < generations.length; i++) {
            generations[i] = new AnswerSlab();
        }
        this.currentGeneration = now / generationNanos;
    }

    /** The node sent this final answer at {@code now} to the request with this branch (lower case). */
    void put(String branch, Answer answer, long now) {
        generations[slot(advance(now))].put(branch, answer);
    }

    /** The answer to send again for a retransmission of a request with this branch and method, or null. */
    Answer find(String branch, String method, long now) {
        long current = advance(now);
        for (long g = current; g > current - GENERATIONS - 1; g--) {
            Answer answer = generations[slot(g)].find(branch);
            if (answer != null) {
                return answer.method.equals(method) ? answer : null;
            }
        }
        return null;
    }

    /** Forgets the answers whose Timer J ran out by {@code now}, had nothing been sent or received since. */
    void expire(long now) {
        advance(now);
    }

    /** The answers kept now. */
    long size() {
        long size = 0;
        for (var generation : generations) {
            size += generation.size();
        }
        return size;
    }

    /**
     * The generation of {@code now}; entering a new one empties its slot, which held the
     * generation that just fell out of the window.
     */
    private long advance(long now) {
        long generation = now / generationNanos;
        long current = currentGeneration;
        if (generation > current) {
            synchronized (this) {
                current = currentGeneration;
                for (long g = current + 1; g <= generation && g <= current + generations.length; g++) {
                    generations[slot(g)].clear();
                }
                if (generation > current) {
                    currentGeneration = generation;
                }
            }
        }
        return Math.max(generation, currentGeneration);
    }

    private int slot(long generation) {
        return (int) Math.floorMod(generation, (long) generations.length);
    }
}
