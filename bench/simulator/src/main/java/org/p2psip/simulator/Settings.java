package org.p2psip.simulator;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One simulation's parameters, as {@code bench/simulate} passes them.
 *
 * @param backend          chord, bamboo or bryan
 * @param nodes            how many nodes the overlay keeps (churn replaces each one that dies)
 * @param sessionMinutes   median session time of a node; 0: no churn
 * @param churn            how session times are drawn: exponential or pareto (shape 2)
 * @param durationMinutes  the measured time, after the overlay is built and warmed up
 * @param seed             every draw (latencies, churn, workload) comes from it
 * @param opsPerNodeMinute user operations per node and minute (a get or a put of a registration)
 * @param records          how many AORs the workload writes and reads
 * @param places           places on the ring per node (Chord and Bryan; 1: one id per node)
 * @param joinsPerSecond   how fast the overlay is built before the measurement
 * @param warmupMinutes    time after the last join before the measurement starts
 * @param out              folder for the per-minute CSV
 * @param options          node options (name=value) the nodes run with, beyond their defaults
 */
record Settings(String backend, int nodes, double sessionMinutes, String churn, double durationMinutes, long seed,
                double opsPerNodeMinute, int records, int places, double joinsPerSecond, double warmupMinutes,
                Path out, Map<String, String> options) {

    static final String USAGE = "usage: simulate --backend chord|bamboo|bryan --nodes N --session-time MINUTES "
            + "(0: no churn) --duration MINUTES --seed S [--churn exponential|pareto] [--ops-per-node-minute X] "
            + "[--records R] [--places V] [--joins-per-second J] [--warmup MINUTES] [--out DIR] [--option NAME=VALUE]...";

    Settings {
        if (!backend.equals("chord") && !backend.equals("bamboo") && !backend.equals("bryan")) {
            throw new IllegalArgumentException("unknown backend " + backend + "; known: chord, bamboo, bryan");
        }
        if (nodes < 2 || sessionMinutes < 0 || durationMinutes <= 0 || records < 1 || places < 1
                || joinsPerSecond <= 0 || opsPerNodeMinute < 0) {
            throw new IllegalArgumentException("need nodes >= 2, session-time >= 0, duration > 0, records >= 1, "
                    + "places >= 1, joins-per-second > 0, ops-per-node-minute >= 0");
        }
        if (!churn.equals("exponential") && !churn.equals("pareto")) {
            throw new IllegalArgumentException("unknown churn model " + churn + "; known: exponential, pareto");
        }
    }

    static Settings parse(String... args) {
        Map<String, String> given = new LinkedHashMap<>();
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value at " + args[i] + "\n" + USAGE);
            }
            if (args[i].equals("--option")) {
                String[] pair = args[i + 1].split("=", 2);
                if (pair.length != 2) {
                    throw new IllegalArgumentException("--option takes NAME=VALUE, got " + args[i + 1]);
                }
                options.put(pair[0], pair[1]);
            } else {
                given.put(args[i].substring(2), args[i + 1]);
            }
        }
        int nodes = Integer.parseInt(take(given, "nodes", null));
        var settings = new Settings(take(given, "backend", null), nodes,
                Double.parseDouble(take(given, "session-time", null)), take(given, "churn", "exponential"),
                Double.parseDouble(take(given, "duration", null)), Long.parseLong(take(given, "seed", null)),
                Double.parseDouble(take(given, "ops-per-node-minute", "6")),
                Integer.parseInt(take(given, "records", String.valueOf(2 * nodes))),
                Integer.parseInt(take(given, "places", "1")),
                Double.parseDouble(take(given, "joins-per-second", "20")),
                Double.parseDouble(take(given, "warmup", "2")),
                Path.of(take(given, "out", "bench/results/simulate")), Map.copyOf(options));
        if (!given.isEmpty()) {
            throw new IllegalArgumentException("unknown options " + given.keySet() + "\n" + USAGE);
        }
        return settings;
    }

    private static String take(Map<String, String> given, String name, String fallback) {
        String value = given.remove(name);
        if (value == null && fallback == null) {
            throw new IllegalArgumentException("--" + name + " is required\n" + USAGE);
        }
        return value == null ? fallback : value;
    }

    Settings withOut(Path folder) {
        return new Settings(backend, nodes, sessionMinutes, churn, durationMinutes, seed, opsPerNodeMinute, records,
                places, joinsPerSecond, warmupMinutes, folder, options);
    }
}
