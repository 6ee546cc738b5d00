package org.p2psip.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs of real nodes in virtual time: the same seed gives the same run; overlays of 200 nodes of
 * each backend answer every lookup correctly and keep every acknowledged record; 200 nodes of each
 * backend under churn (10-minute median sessions, 5 measured minutes) answer at least 99% of
 * lookups and lose nothing; 100 Chord nodes of 16 places each, joining at once, mend the loops
 * their joins leave. The larger runs are in the bench (bench/simulate), where their figures are reported.
 */
class SimulationTest {

    @TempDir
    Path folder;

    @Test
    void theSameSeedGivesTheSameRunMinuteByMinute() throws IOException {
        run("chord", 40, 5, 2, 7, folder.resolve("a"));
        run("chord", 40, 5, 2, 7, folder.resolve("b"));
        List<String> first = csv(folder.resolve("a"));
        List<String> second = csv(folder.resolve("b"));
        assertEquals(first, second);
        assertTrue(first.size() == 3 && !first.get(1).equals(first.get(2)), "two minutes with traffic: " + first);
    }

    @Test
    void anotherSeedGivesAnotherRun() throws IOException {
        run("chord", 40, 5, 2, 7, folder.resolve("a"));
        run("chord", 40, 5, 2, 8, folder.resolve("b"));
        List<String> first = csv(folder.resolve("a"));
        List<String> other = csv(folder.resolve("b"));
        assertTrue(!first.equals(other), "seeds 7 and 8 ran alike: " + first);
    }

    @Test
    void chordWithoutChurnAnswersEveryLookupAndLosesNothing() {
        assertPerfect(run("chord", 200, 0, 2, 1, folder));
    }

    @Test
    void bambooWithoutChurnAnswersEveryLookupAndLosesNothing() {
        assertPerfect(run("bamboo", 200, 0, 2, 1, folder));
    }

    @Test
    void bryanWithoutChurnAnswersEveryLookupAndLosesNothing() {
        assertPerfect(run("bryan", 200, 0, 2, 1, folder));
    }

    /**
     * 1,600 places joining within 20 s left rings that went round twice, which stabilisation
     * alone keeps: without the ring core's successor check a fifth of these lookups were stale
     * and 28 acknowledged records lost. Two minutes of warm-up: after one, the ring was right
     * but one put of 499 still failed while it settled.
     */
    @Test
    void chordNodesOfSixteenPlacesMendTheLoopsTheirJoinsLeave() {
        assertPerfect(run("chord", 100, 0, 2, 1, folder, "--places", "16", "--warmup", "2"));
    }

    @Test
    void chordUnderChurnAnswersLookupsAndLosesNothing() {
        assertUnderChurn(run("chord", 200, 10, 5, 1, folder));
    }

    @Test
    void bambooUnderChurnAnswersLookupsAndLosesNothing() {
        assertUnderChurn(run("bamboo", 200, 10, 5, 1, folder));
    }

    @Test
    void bryanUnderChurnAnswersLookupsAndLosesNothing() {
        assertUnderChurn(run("bryan", 200, 10, 5, 1, folder));
    }

    /** The bar under 10-minute median sessions: 99% of lookups correct, no acknowledged record lost. */
    private static void assertUnderChurn(Minute total) {
        assertTrue(total.gets > 3000, "too few lookups to judge: " + total.gets);
        assertTrue(total.correctPercent() >= 99, "at least 99% of lookups correct under 10-minute sessions: " + total.row());
        assertEquals(0, total.lost, "acknowledged records lost: " + total.row());
    }

    private static void assertPerfect(Minute total) {
        assertTrue(total.gets > 500, "too few lookups to judge: " + total.gets);
        assertEquals(total.gets, total.correct, "lookups not correct: " + total.row());
        assertEquals(0, total.putsFailed, "puts failed: " + total.row());
        assertEquals(0, total.lost, "acknowledged records lost: " + total.row());
        assertTrue(total.hopsQuantile(0.5) >= 1, "lookups took no hops: " + total.row());
    }

    private static Minute run(String backend, int nodes, double session, double minutes, long seed, Path out,
                              String... more) {
        var args = new ArrayList<>(List.of("--backend", backend, "--nodes", String.valueOf(nodes), "--session-time",
                String.valueOf(session), "--duration", String.valueOf(minutes), "--seed", String.valueOf(seed),
                "--out", out.toString()));
        args.addAll(List.of(more));
        if (!args.contains("--warmup")) {
            args.addAll(List.of("--warmup", "1"));
        }
        var settings = Settings.parse(args.toArray(String[]::new));
        return Simulate.run(settings, new PrintStream(new ByteArrayOutputStream()));
    }

    private static List<String> csv(Path out) throws IOException {
        try (var files = Files.list(out)) {
            Path table = files.filter(f -> f.toString().endsWith(".csv")).findFirst().orElseThrow();
            return Files.readAllLines(table);
        }
    }
}
