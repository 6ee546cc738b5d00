package org.p2psip.integration;

import java.nio.file.Path;

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
        return command.run(300, "sipp-scenarios/register/run", node, "--users", String.valueOf(users),
                "--start", String.valueOf(start), "--rate", String.valueOf(rate),
                "--out", out.resolve("register-" + start).toString());
    }

    int calls(String proxy, String registrar, String callee, int calls) {
        return command.run(300, "sipp-scenarios/call/run", proxy, "--register-via", registrar,
                "--callee", callee, "--caller", callee + "-caller", "--calls", String.valueOf(calls),
                "--rate", "10", "--out", out.resolve("call-" + callee).toString());
    }

    int badInput(String node, String scenario) {
        return command.run(120, "sipp-scenarios/bad-input/run", node, scenario);
    }
}
