package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

/**
 * Nodes started with deploy/p2psip for one test class, in a run folder and port range of its own
 * (so that test classes, the bench and a developer's deployment never meet). {@link #close()}
 * runs deploy/p2psip down, which stops exactly what up started. Not thread-safe.
 */
final class Deployment implements AutoCloseable {

    /** The app the tests deploy; -Dp2psip.it.app=ceiling runs them against bench/ceiling. */
    static final String APP = System.getProperty("p2psip.it.app", "p2psip");

    private final String name;
    private final String dht;
    private final int basePort;
    private final int nodes;
    private final Path runDir;
    private final Command command;

    Deployment(String name, int basePort, int nodes) {
        this(name, "memory", basePort, nodes);
    }

    Deployment(String name, String dht, int basePort, int nodes) {
        this.name = name;
        this.dht = dht;
        this.basePort = basePort;
        this.nodes = nodes;
        this.runDir = Command.WORK.resolve("run-" + name);
        this.command = new Command("deploy-" + name);
    }

    /** Starts the nodes; returns when each answers OPTIONS (deploy/p2psip up), else fails the test. */
    Deployment up() {
        int code = command.run(600, "deploy/p2psip", "up", "--dht", dht, "--app", APP,
                "--nodes", String.valueOf(nodes), "--base-port", String.valueOf(basePort), "--heap", "512m",
                "--run-dir", runDir.toString(), "--timeout", "180");
        assertEquals(0, code, "deploy/p2psip up of " + name + " failed; see " + command.log()
                + " and " + runDir + "/node-*/logs/console.log");
        return this;
    }

    /** host:port of node i's SIP connectors. */
    String node(int i) {
        return "127.0.0.1:" + (basePort + i);
    }

    /** KILLs node i without warning (deploy/p2psip kill): a crash. */
    void kill(int i) {
        int code = command.run(60, "deploy/p2psip", "kill", String.valueOf(i), "--run-dir", runDir.toString());
        assertEquals(0, code, "deploy/p2psip kill " + i + " failed; see " + command.log());
    }

    @Override
    public void close() {
        int code = command.run(120, "deploy/p2psip", "down", "--run-dir", runDir.toString());
        assertEquals(0, code, "deploy/p2psip down of " + name + " failed; see " + command.log());
    }
}
