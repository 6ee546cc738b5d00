package org.p2psip.simulator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What one simulated minute (or a whole run) saw: operations by outcome, hops, latencies, bytes. */
final class Minute {

    /** A get that answered after this long counts as late (it is still counted correct if it was). */
    static final long LATE_NANOS = 1_000_000_000L;

    final int index;
    long gets;
    long correct;
    long stale;
    long failed;
    long late;
    long puts;
    long putsFailed;
    long joins;
    long crashes;
    long lost;
    final long[] hops = new long[64];
    final List<Long> getNanos = new ArrayList<>();
    long quietBytes;
    double quietNodeSeconds;

    Minute(int index) {
        this.index = index;
    }

    void add(Minute other) {
        gets += other.gets;
        correct += other.correct;
        stale += other.stale;
        failed += other.failed;
        late += other.late;
        puts += other.puts;
        putsFailed += other.putsFailed;
        joins += other.joins;
        crashes += other.crashes;
        lost += other.lost;
        for (int h = 0; h < hops.length; h++) {
            hops[h] += other.hops[h];
        }
        getNanos.addAll(other.getNanos);
        quietBytes += other.quietBytes;
        quietNodeSeconds += other.quietNodeSeconds;
    }

    double correctPercent() {
        return gets == 0 ? 100 : 100.0 * correct / gets;
    }

    /** The hop count below which {@code fraction} of the lookups fall; -1 with none counted. */
    int hopsQuantile(double fraction) {
        long total = 0;
        for (long count : hops) {
            total += count;
        }
        if (total == 0) {
            return -1;
        }
        long seen = 0;
        for (int h = 0; h < hops.length; h++) {
            seen += hops[h];
            if (seen >= Math.ceil(fraction * total)) {
                return h;
            }
        }
        return hops.length - 1;
    }

    double latencyMillis(double fraction) {
        if (getNanos.isEmpty()) {
            return 0;
        }
        List<Long> sorted = new ArrayList<>(getNanos);
        Collections.sort(sorted);
        int at = (int) Math.min(sorted.size() - 1, Math.ceil(fraction * sorted.size()) - 1);
        return sorted.get(Math.max(0, at)) / 1e6;
    }

    /** Bytes per node and second sent while no user operation ran: the overlay's own upkeep. */
    double maintenanceBytesPerNodeSecond() {
        return quietNodeSeconds == 0 ? 0 : quietBytes / quietNodeSeconds;
    }

    static final String HEADER = "minute,joins,crashes,gets,correct,stale,failed,late,puts,puts_failed,correct_pct,"
            + "hops_median,hops_p99,latency_median_ms,latency_p99_ms,maintenance_bytes_per_node_s,lost";

    String row() {
        return String.format(java.util.Locale.ROOT, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.3f,%d,%d,%.1f,%.1f,%.0f,%d",
                index, joins, crashes, gets, correct, stale, failed, late, puts, putsFailed, correctPercent(),
                hopsQuantile(0.5), hopsQuantile(0.99), latencyMillis(0.5), latencyMillis(0.99),
                maintenanceBytesPerNodeSecond(), lost);
    }
}
