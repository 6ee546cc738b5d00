package org.p2psip.simulator;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.p2psip.config.Config;
import org.p2psip.testkit.SimulatedTime;

/**
 * {@code bench/simulate}'s engine: runs N real nodes of a backend in this JVM in virtual time,
 * prints a line per simulated minute, writes them as CSV to {@code --out}, and ends with the
 * one-line summary scripts read.
 */
public final class Simulate {

    private Simulate() {
    }

    public static void main(String[] args) {
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("simulate: " + e.getMessage());
            System.exit(2);
            return;
        }
        Minute total;
        try {
            total = run(settings, System.err);
        } catch (IllegalArgumentException e) {
            System.err.println("simulate: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.out.println(summary(settings, total));
    }

    /** Runs one simulation; its minutes are printed to {@code log} and written to the CSV. */
    static Minute run(Settings settings, PrintStream log) {
        var time = new SimulatedTime();
        var latencies = new Latencies(settings.seed());
        List<String> rows = new ArrayList<>();
        rows.add(Minute.HEADER);
        long started = System.nanoTime();
        try (Backend backend = backend(settings, time, latencies)) {
            var simulation = new Simulation(settings, time, backend, log);
            Minute total = simulation.run(minute -> {
                rows.add(minute.row());
                log.printf(Locale.ROOT, "simulate: minute %d: %d nodes, %.2f%% correct, %d crashes, "
                                + "%.0f maintenance bytes/node/s (%.0f s so far)%n", minute.index, simulation.live(),
                        minute.correctPercent(), minute.crashes, minute.maintenanceBytesPerNodeSecond(),
                        (System.nanoTime() - started) / 1e9);
            });
            write(settings, rows);
            return total;
        }
    }

    static String summary(Settings settings, Minute total) {
        return String.format(Locale.ROOT, "simulate: backend %s nodes %d correct %.2f%% hops-median %d hops-p99 %d "
                        + "maintenance-bytes-per-node-s %.0f lost %d", settings.backend(), settings.nodes(),
                total.correctPercent(), total.hopsQuantile(0.5), total.hopsQuantile(0.99),
                total.maintenanceBytesPerNodeSecond(), total.lost);
    }

    private static Backend backend(Settings settings, SimulatedTime time, Latencies latencies) {
        Config config = Config.empty().with("p2psip.overlay.secret", "simulated-overlay-" + settings.seed());
        for (var option : settings.options().entrySet()) {
            config = config.with(option.getKey(), option.getValue());
        }
        if (settings.places() > 1 && settings.backend().equals("bamboo")) {
            throw new IllegalArgumentException("--places applies to chord and bryan only");
        }
        return switch (settings.backend()) {
            case "chord" -> new ChordBackend(time, latencies,
                    config.with("p2psip.chord.places", String.valueOf(settings.places())), settings.seed());
            case "bryan" -> new BryanBackend(time, latencies,
                    config.with("p2psip.bryan.places", String.valueOf(settings.places())));
            default -> new BambooBackend(time, latencies, config, settings.seed());
        };
    }

    private static void write(Settings settings, List<String> rows) {
        Path csv = settings.out().resolve(String.format(Locale.ROOT, "simulate-%s-%d-s%s-seed%d.csv",
                settings.backend(), settings.nodes(), trim(settings.sessionMinutes()), settings.seed()));
        try {
            Files.createDirectories(settings.out());
            Files.write(csv, rows);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + csv, e);
        }
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }
}
