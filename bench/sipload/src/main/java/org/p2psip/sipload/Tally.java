package org.p2psip.sipload;

import java.util.Map;
import java.util.TreeMap;

/**
 * What one run of the load counted: attempts started (and those it could not start, every phone
 * being busy), completed, failed (by time-out, by final status), retransmissions, stale nonces
 * answered, REGISTERs sent again after a 503's Retry-After, and the latency of each completed
 * attempt. Used by the load's one thread only.
 */
final class Tally {
    long started;
    long notStarted;          // due, but every phone was still busy with its last attempt
    long completed;
    long timeouts;
    long connectionFailures;  // over TCP: the connection could not be opened, or closed before the final answer
    long unchallenged;        // completed without the challenge mode first expects
    long staleAnswered;       // 401 stale=true answered with the new nonce
    long retransmissions;
    long retried503;          // REGISTERs sent again after a 503's Retry-After (those 503s failed nothing)
    long strays;              // responses to no open transaction (late, duplicated)
    long firstStartNanos = -1;
    long lastStartNanos = -1;
    final Map<Integer, Long> failedByStatus = new TreeMap<>();
    final LatencyHistogram latencies = new LatencyHistogram();

    void started(long now) {
        started++;
        if (firstStartNanos < 0) {
            firstStartNanos = now;
        }
        lastStartNanos = now;
    }

    void failedWith(int status) {
        failedByStatus.merge(status, 1L, Long::sum);
    }

    long failedByStatusTotal() {
        return failedByStatus.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Attempts that did not complete: time-outs, other final answers, lost connections, and those never started. */
    long failed() {
        return timeouts + failedByStatusTotal() + connectionFailures + notStarted;
    }
}
