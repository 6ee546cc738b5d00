package org.p2psip.integration;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * The run scripts of sipp-scenarios/, each returning SIPp's exit code: 0 when every call of the
 * scenario passed. Tests assert on that code only, never on SIPp's logs. Not thread-safe.
 */
final class Scenarios {

    private final Command command;
    private final Path out;

    Scenarios(String name) {
        this.command = new Command("sipp-" + name);
        this.out = Command.WORK.resolve("sipp-" + name);
    }

    /** Where SIPp's statistics and the scripts' output are, for a failure message. */
    String where() {
        return "see " + command.log() + " and " + out;
    }

    int register(String node, int users, int start, int rate) {
        return register(node, users, start, rate, "127.0.0.1");
    }

    /** {@link #register(String, int, int, int)} from SIPp bound to {@code address} (127.0.0.0/8 on loopback). */
    int register(String node, int users, int start, int rate, String address) {
        return command.run(300, "sipp-scenarios/register/run", node, "--users", String.valueOf(users),
                "--start", String.valueOf(start), "--rate", String.valueOf(rate), "--address", address,
                "--out", out.resolve("register-" + start).toString());
    }

    /**
     * sipp-scenarios/register/run --flood: {@code requests} REGISTERs over {@code aors} AORs in
     * turn, at a rate past the node's capacity; 0 when every one was answered, 200 or 503, none left
     * unanswered or answered otherwise.
     */
    int flood(String node, int requests, int aors, int start, int rate) {
        return command.run(600, "sipp-scenarios/register/run", node, "--flood", "--users", String.valueOf(requests),
                "--aors", String.valueOf(aors), "--start", String.valueOf(start), "--rate", String.valueOf(rate),
                "--out", out.resolve("flood-" + start).toString());
    }

    /** sipp-scenarios/avalanche: users phones within window seconds, obeying Retry-After; 0 when all ended registered. */
    int avalanche(String target, int users, int windowSeconds) {
        return command.run(600, "sipp-scenarios/avalanche/run", target, "--users", String.valueOf(users),
                "--window", String.valueOf(windowSeconds), "--out", out.resolve("avalanche").toString());
    }

    int calls(String proxy, String registrar, String callee, int calls) {
        return command.run(300, "sipp-scenarios/call/run", proxy, "--register-via", registrar,
                "--callee", callee, "--caller", callee + "-caller", "--calls", String.valueOf(calls),
                "--rate", "10", "--out", out.resolve("call-" + callee).toString());
    }

    /**
     * sipp-scenarios/call/run --callees: one call to each user part in {@code callees} through
     * {@code proxy}; with {@code unavailable} each must be refused 480 at once. 0 when all did as told.
     */
    int callEach(String proxy, Path callees, boolean unavailable) {
        List<String> args = new ArrayList<>(List.of(proxy, "--callees", callees.toString(), "--rate", "20",
                "--out", out.resolve("callees-" + callees.getFileName() + (unavailable ? "-unavailable" : "")).toString()));
        if (unavailable) {
            args.add("--unavailable");
        }
        return command.run(300, "sipp-scenarios/call/run", args.toArray(String[]::new));
    }

    /** Query REGISTERs of the AORs register(...) registered; 0 only when each still lists a binding. */
    int query(String node, int users, int start, int rate) {
        return command.run(300, "sipp-scenarios/register/run", node, "--query", "--users", String.valueOf(users),
                "--start", String.valueOf(start), "--rate", String.valueOf(rate),
                "--out", out.resolve("query-" + start).toString());
    }

    /** Calls with the callee's SIPp UAS on uasPort: registered first through registrar, or, when
     *  registrar is null, registered earlier with that port as its Contact. */
    int calls(String proxy, String registrar, String callee, int uasPort, int calls) {
        List<String> args = new ArrayList<>(List.of(proxy, "--callee", callee, "--caller", callee + "-caller",
                "--uas-port", String.valueOf(uasPort), "--calls", String.valueOf(calls), "--rate", "10",
                "--out", out.resolve("call-" + callee + (registrar == null ? "-again" : "")).toString()));
        if (registrar == null) {
            args.add("--no-register");
        } else {
            args.addAll(List.of("--register-via", registrar));
        }
        return command.run(300, "sipp-scenarios/call/run", args.toArray(String[]::new));
    }

    /**
     * Runs a scenario until it exits 0 or the bound is over; its last exit code. For checks right
     * after a node was killed, while the overlay repairs itself: a request may meet the dead node
     * and get 503, which a client retries. A lost binding stays lost, so a retried check still fails.
     */
    int untilPassed(Duration bound, IntSupplier scenario) {
        long deadline = System.nanoTime() + bound.toNanos();
        int code;
        do {
            code = scenario.getAsInt();
        } while (code != 0 && System.nanoTime() < deadline);
        return code;
    }

    int badInput(String node, String scenario) {
        return command.run(120, "sipp-scenarios/bad-input/run", node, scenario);
    }

    /**
     * sipp-scenarios/bad-input/torture: every message of its RFC 4475 corpus to target over UDP,
     * one line per message in report (name, pass/gap/FAIL, status, reason, expected); 0 when
     * none failed.
     */
    int torture(String target, Path report) {
        return command.run(300, "sipp-scenarios/bad-input/torture", target, "--report", report.toString());
    }

    /** One check of sipp-scenarios/proxy/run (unavailable, loop, cancel, q-order, ...). */
    int proxy(String node, String check) {
        return command.run(120, "sipp-scenarios/proxy/run", node, check);
    }

    /** sipp-scenarios/proxy/run's gruu check: registered through registrar, each GRUU called through via. */
    int gruu(String registrar, String via) {
        return command.run(120, "sipp-scenarios/proxy/run", registrar, "gruu", "--via", via);
    }

    /** One check of sipp-scenarios/registrar/run (answer-lists-date-and-expires, ...). */
    int registrar(String node, String check) {
        return command.run(120, "sipp-scenarios/registrar/run", node, check);
    }

    /** One check of sipp-scenarios/auth/run (challenge-then-200, ...) as user with password. */
    int auth(String node, String check, String user, String password) {
        return command.run(120, "sipp-scenarios/auth/run", node, check, "--user", user, "--password", password);
    }

    /** Calls through proxy to a SIPp UAS at 127.0.0.1:uasPort addressed directly (sip:callee@127.0.0.1:uasPort), nobody registered. */
    int relayedCalls(String proxy, int uasPort, int calls) {
        return command.run(300, "sipp-scenarios/call/run", proxy, "--no-register", "--uas-port", String.valueOf(uasPort),
                "--callee-domain", "127.0.0.1:" + uasPort, "--calls", String.valueOf(calls),
                "--out", out.resolve("relayed").toString());
    }
}
