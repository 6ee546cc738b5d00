package org.p2psip.sipload;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The optional per-registration CSV (--csv): user, when it started (ms after the run's start),
 * its latency in ms (empty when it failed), its outcome (ok, a status, timeout) and its
 * retransmissions. Buffered; used by the load's one thread only.
 */
final class AttemptLog implements Closeable {
    static final String HEADER = "user,start_ms,latency_ms,outcome,retransmissions";
    private final BufferedWriter out;
    private long originNanos = -1;

    AttemptLog(Path file) throws IOException {
        out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        out.write(HEADER);
        out.newLine();
    }

    /** Times are written relative to this instant (the measured run's start). */
    void origin(long nanos) {
        originNanos = nanos;
    }

    void write(Attempt attempt, long endNanos, String outcome) {
        long origin = originNanos < 0 ? attempt.startedNanos : originNanos;
        String latency = outcome.equals("ok")
                ? String.format(Locale.ROOT, "%.3f", (endNanos - attempt.startedNanos) / 1e6) : "";
        try {
            out.write(attempt.phone.user.key() + "," + String.format(Locale.ROOT, "%.3f", (attempt.startedNanos - origin) / 1e6)
                    + "," + latency + "," + outcome + "," + attempt.retransmissions);
            out.newLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
