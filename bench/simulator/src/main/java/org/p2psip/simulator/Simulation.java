package org.p2psip.simulator;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.p2psip.testkit.SimulatedTime;

/**
 * One run: builds the overlay (nodes join at a steady rate, then it warms up), then for each
 * measured minute runs the workload for its first 40 seconds and only the overlay's own upkeep for
 * the last 15 (whose bytes are the maintenance traffic), while churn crashes nodes and fresh ones
 * (at new addresses) take their places; at the end churn stops and every acknowledged record is
 * looked for. Single-threaded: everything runs on the {@link SimulatedTime} loop it drives.
 */
final class Simulation {

    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long BUSY = 40 * SECOND;
    private static final long QUIET_FROM = 45 * SECOND;

    private final Settings settings;
    private final PrintStream log;
    private final SimulatedTime time;
    private final Backend backend;
    private final SplittableRandom random;
    private final Churn churn;
    private final Workload workload;
    private final List<Member> ready = new ArrayList<>();
    private final Map<Member, Integer> readyAt = new HashMap<>();
    private final Map<Member, long[]> hopsSeen = new HashMap<>();
    private final Set<Member> all = new LinkedHashSet<>();
    private int nextAddress;
    private boolean churning;
    private Minute minute = new Minute(0);

    Simulation(Settings settings, SimulatedTime time, Backend backend, PrintStream log) {
        this.settings = settings;
        this.log = log;
        this.time = time;
        this.backend = backend;
        this.random = new SplittableRandom(settings.seed());
        this.churn = new Churn(settings.churn(), settings.sessionMinutes(), random.split());
        this.workload = new Workload(time, random.split(), settings.records(), log);
    }

    /** Runs the whole simulation; {@code each} gets every measured minute as it ends. Returns the totals. */
    Minute run(Consumer<Minute> each) {
        build();
        churning = churn.on();
        if (churning) {
            for (Member member : new ArrayList<>(all)) {
                scheduleCrash(member);
            }
        }
        var total = new Minute(-1);
        int minutes = (int) Math.ceil(settings.durationMinutes());
        for (int m = 1; m <= minutes; m++) {
            minute = new Minute(m);
            runMinute();
            each.accept(minute);
            total.add(minute);
        }
        churning = false;
        time.runFor(MINUTE); // let the last repairs end, as an operator would before counting
        var end = new Minute(minutes + 1);
        boolean[] checked = {false};
        workload.checkAll(List.copyOf(ready), end, () -> checked[0] = true);
        for (int i = 0; i < 600 && !checked[0]; i++) {
            time.runFor(SECOND);
        }
        total.lost = end.lost + (checked[0] ? 0 : settings.records());
        return total;
    }

    private void build() {
        long spacing = (long) (SECOND / settings.joinsPerSecond());
        for (int i = 0; i < settings.nodes(); i++) {
            startNode();
            time.runFor(spacing);
        }
        long waited = 0;
        while (ready.size() < settings.nodes() && waited < 10 * MINUTE) {
            time.runFor(SECOND);
            waited += SECOND;
        }
        if (ready.size() < settings.nodes()) {
            log.printf("simulate: %d of %d nodes had not joined 10 minutes after the last one started%n",
                    settings.nodes() - ready.size(), settings.nodes());
        }
        time.runFor((long) (settings.warmupMinutes() * MINUTE));
        for (Member member : ready) {
            hopsSeen.put(member, hops(member));
        }
    }

    private void runMinute() {
        double perSecond = settings.opsPerNodeMinute() * settings.nodes() / 60.0 * 60 / 40;
        long start = time.nanos();
        // Poisson arrivals over the busy part of the minute
        long at = 0;
        while (perSecond > 0) {
            at += (long) (-Math.log(1 - random.nextDouble()) / perSecond * SECOND);
            if (at >= BUSY) {
                break;
            }
            Minute counted = minute;
            time.schedule(() -> {
                if (!ready.isEmpty()) {
                    workload.issue(ready.get(random.nextInt(ready.size())), counted);
                }
            }, at, TimeUnit.NANOSECONDS);
        }
        time.runFor(QUIET_FROM);
        long bytesBefore = backend.bytesSent();
        long quietStart = time.nanos();
        time.runFor(start + MINUTE - time.nanos());
        minute.quietBytes = backend.bytesSent() - bytesBefore;
        minute.quietNodeSeconds = ready.size() * (double) (time.nanos() - quietStart) / SECOND;
        for (Member member : ready) {
            collectHops(member);
        }
    }

    private void startNode() {
        int n = nextAddress++;
        String address = "10." + (n >> 16 & 255) + "." + (n >> 8 & 255) + "." + (n & 255) + ":5060";
        String bootstrap = ready.isEmpty() ? "" : ready.get(random.nextInt(ready.size())).address();
        if (!all.isEmpty() && bootstrap.isEmpty()) {
            bootstrap = all.iterator().next().address(); // the founder, still joining itself
        }
        Member member = backend.start(address, bootstrap);
        all.add(member);
        minute.joins++;
        member.dht().joined().thenRun(() -> {
            if (all.contains(member) && !readyAt.containsKey(member)) {
                readyAt.put(member, ready.size());
                ready.add(member);
                hopsSeen.put(member, hops(member));
            }
        });
        if (churning) {
            scheduleCrash(member);
        }
    }

    private void scheduleCrash(Member member) {
        time.schedule(() -> {
            if (!churning || !all.contains(member)) {
                return;
            }
            collectHops(member);
            forget(member);
            member.crashNow();
            minute.crashes++;
            startNode(); // a fresh node takes its place, keeping the overlay's size
        }, churn.sessionNanos(), TimeUnit.NANOSECONDS);
    }

    private void forget(Member member) {
        all.remove(member);
        hopsSeen.remove(member);
        Integer index = readyAt.remove(member);
        if (index != null) {
            Member last = ready.remove(ready.size() - 1);
            if (last != member) {
                ready.set(index, last);
                readyAt.put(last, index);
            }
        }
    }

    private void collectHops(Member member) {
        long[] before = hopsSeen.get(member);
        if (before == null) {
            return;
        }
        long[] now = hops(member);
        for (int h = 0; h < now.length; h++) {
            minute.hops[h] += now[h] - before[h];
        }
        hopsSeen.put(member, now);
    }

    private long[] hops(Member member) {
        long[] counts = new long[64];
        String prefix = backend.name() + ".lookup.hops.";
        member.dht().metrics().forEach((name, value) -> {
            if (name.startsWith(prefix)) {
                int h = Integer.parseInt(name.substring(prefix.length()));
                counts[Math.min(h, counts.length - 1)] += value;
            }
        });
        return counts;
    }

    int live() {
        return ready.size();
    }
}
