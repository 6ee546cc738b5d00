package org.p2psip.simulator;

import java.io.PrintStream;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.testkit.SimulatedTime;

/**
 * Users' puts and gets of registration-sized records, and the oracle that judges them. Each AOR
 * has at most one operation in flight, as one phone registers at a time. The oracle keeps the last
 * acknowledged version of each AOR and the versions of puts that failed (they may have landed):
 * a get is correct when it returns the acknowledged version, or one of those newer versions.
 */
final class Workload {

    private static final long RETAIN_MILLIS = 24 * 3_600_000L;
    private static final double PUT_SHARE = 0.3;
    /** An operation not over by then is counted failed: a node must never leave its caller waiting. */
    private static final long HUNG_NANOS = 60_000_000_000L;

    private final SimulatedTime time;
    private final PrintStream log;
    private final SplittableRandom random;
    private final Record[] records;

    private static final class Record {
        final String aor;
        long acked; // the stored version after the last acknowledged put; 0: never written
        final Set<Long> maybe = new HashSet<>();
        boolean busy;

        Record(String aor) {
            this.aor = aor;
        }
    }

    Workload(SimulatedTime time, SplittableRandom random, int records, PrintStream log) {
        this.time = time;
        this.log = log;
        this.random = random;
        this.records = new Record[records];
        for (int i = 0; i < records; i++) {
            this.records[i] = new Record("sip:user" + i + "@sim.example.net");
        }
    }

    /** Starts one operation from {@code from}, its outcome counted in {@code minute}. */
    void issue(Member from, Minute minute) {
        Record record = records[random.nextInt(records.length)];
        if (record.busy) {
            return; // this user's phone is busy: skip rather than queue
        }
        record.busy = true;
        boolean put = record.acked == 0 || random.nextDouble() < PUT_SHARE;
        long started = time.nanos();
        var watchdog = time.schedule(() -> {
            if (record.busy) {
                record.busy = false;
                countHung(put, minute);
            }
        }, HUNG_NANOS, TimeUnit.NANOSECONDS);
        if (put) {
            long read = record.acked;
            BindingSet next = new BindingSet(record.aor, read, now() + RETAIN_MILLIS, List.of(binding(record, read + 1)));
            from.dht().putOrCurrent(next).whenComplete((current, failure) -> {
                if (!record.busy) {
                    return;
                }
                watchdog.cancel(false);
                record.busy = false;
                putDone(record, read + 1, current, failure, minute);
            });
        } else {
            from.dht().get(record.aor).whenComplete((found, failure) -> {
                if (!record.busy) {
                    return;
                }
                watchdog.cancel(false);
                record.busy = false;
                getDone(record, found, failure, time.nanos() - started, minute);
            });
        }
    }

    private void putDone(Record record, long version, Optional<BindingSet> current, Throwable failure, Minute minute) {
        minute.puts++;
        if (failure != null) {
            minute.putsFailed++;
            record.maybe.add(version);
            return;
        }
        if (current.isEmpty()) {
            record.acked = version;
            record.maybe.clear();
            return;
        }
        // Refused: an earlier put that failed to answer did land. Take its version as known.
        long stored = current.get().version();
        if (record.maybe.contains(stored)) {
            record.acked = stored;
            record.maybe.clear();
        } else {
            minute.putsFailed++;
        }
    }

    private void getDone(Record record, BindingSet found, Throwable failure, long nanos, Minute minute) {
        minute.gets++;
        if (failure != null) {
            minute.failed++;
            return;
        }
        long version = found.version();
        if (version == record.acked || (version > record.acked && record.maybe.contains(version))) {
            minute.correct++;
            minute.getNanos.add(nanos);
            if (nanos > Minute.LATE_NANOS) {
                minute.late++;
            }
        } else {
            minute.stale++;
        }
    }

    /** An operation that never ended: a failed put or get. */
    private void countHung(boolean put, Minute minute) {
        if (put) {
            minute.puts++;
            minute.putsFailed++;
        } else {
            minute.gets++;
            minute.failed++;
        }
    }

    /**
     * Reads every written AOR from {@code from} and counts in {@code minute} those whose
     * acknowledged version is gone (older or absent): records lost. A read that fails is tried
     * again through the other members given, up to three.
     */
    void checkAll(List<Member> from, Minute minute, Runnable done) {
        var pending = new int[] {0};
        for (Record record : records) {
            if (record.acked == 0 || record.busy) {
                continue;
            }
            pending[0]++;
            check(record, from, 0, minute, () -> {
                if (--pending[0] == 0) {
                    done.run();
                }
            });
        }
        if (pending[0] == 0) {
            done.run();
        }
    }

    private void check(Record record, List<Member> from, int attempt, Minute minute, Runnable done) {
        Member member = from.get(random.nextInt(from.size()));
        member.dht().get(record.aor).whenComplete((found, failure) -> {
            boolean ok = failure == null && found.version() >= record.acked;
            if (ok) {
                done.run();
            } else if (attempt < 2) {
                check(record, from, attempt + 1, minute, done);
            } else {
                minute.lost++;
                log.println("simulate: lost " + record.aor + " acked " + record.acked + " maybe " + record.maybe
                        + " last read " + (failure != null ? failure : found.version()) + " through " + member.address());
                done.run();
            }
        });
    }

    private long now() {
        return time.clock().millis();
    }

    private Binding binding(Record record, long version) {
        String user = record.aor.substring(4, record.aor.indexOf('@'));
        return new Binding(record.aor, "<sip:" + user + "@198.51.100." + (version % 250) + ":5060;transport=tcp;ob>",
                now() + 3_600_000L, Binding.Q_UNSPECIFIED, "c" + Long.toHexString(random.nextLong()) + "@phone",
                version, List.of("<sip:edge.sim.example.net;lr;ob>"),
                "<urn:uuid:00000000-0000-4000-8000-" + String.format("%012d", version) + ">", 1);
    }
}
