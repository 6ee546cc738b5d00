package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    /** The front's policy (deploy/p2psip up --front), or null for none. */
    private String frontPolicy;
    private int frontPort;
    /** src/front processes sharing the front's port (deploy/p2psip up --front-processes). */
    private int frontProcesses = 1;
    /** Whether the nodes log every SIP message (--sip-trace); on with a front, see {@link #withFront}. */
    private boolean sipTrace;
    /** Less than deploy/p2psip's default, so that many test nodes fit beside each other. */
    private String heap = "512m";
    /**
     * Node options (deploy/p2psip up --set) and JVM arguments. Most tests here check what the
     * nodes do, four of them and a front sharing two cores, so they start as nodes that must be
     * ready soon rather than fast: a short warm-up (the default, 20,000 REGISTERs shared among the
     * nodes starting together and then until the compiler is quiet, takes 20 s a node when four
     * start at once), on the JVM's first-tier compiler alone (deploy/p2psip's --jit auto too)
     * (C2 compiling in four JVMs at once left three joining Chord nodes 1,000 to 1,500 warm-up
     * requests in 20 s, and they then missed DHT deadlines at 200 REGISTER/s through the front;
     * C1 alone warms in a few seconds and carries far more than the tests offer), and the
     * intake's overload rules loosened so that slow nodes answer slowly rather than refuse; a front
     * (if any) warms up on 2,000 requests rather than 20,000.
     * ReadinessIT and AvalancheIT run the defaults, OverloadIT all but the warm-up, RefreshIT (minutes
     * of load) the optimising compiler.
     */
    private final Map<String, String> settings = new LinkedHashMap<>(Map.of(
            "p2psip.warmup.requests", "2000",
            "p2psip.warmup.timeout", "20s",
            "p2psip.front.warmup.requests", "2000",
            "p2psip.intake.max-queue-delay", "1s",
            "p2psip.intake.target-response-delay", "2s",
            "p2psip.intake.max-collector-share", "0.9"));
    private final List<String> jvmArgs = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1"));
    /** Whether the nodes (and the front) also speak SIP over TLS (deploy/p2psip up --tls). */
    private boolean tls;
    /** Whether the nodes' overlay runs over mutual TLS (deploy/p2psip up --overlay-tls). */
    private boolean overlayTls;
    /** USER@DOMAIN to password: with any, the nodes run with --auth and these users. */
    private final Map<String, String> users = new LinkedHashMap<>();

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

    /**
     * Puts a front with this policy on the port before the nodes (call before {@link #up()}); the
     * nodes then log every SIP message (--sip-trace), so that a test can see which node got what.
     */
    Deployment withFront(String policy, int port) {
        this.frontPolicy = policy;
        this.frontPort = port;
        this.sipTrace = true;
        return this;
    }

    /** Runs the front as {@code processes} processes on its one address (call after {@link #withFront}). */
    Deployment withFrontProcesses(int processes) {
        this.frontProcesses = processes;
        return this;
    }

    /** Whether the nodes log every SIP message (call after {@link #withFront} to turn it off). */
    Deployment withSipTrace(boolean on) {
        this.sipTrace = on;
        return this;
    }

    /** A node option (deploy/p2psip up --set; call before {@link #up()}). */
    Deployment withSetting(String name, String value) {
        settings.put(name, value);
        return this;
    }

    /** Every node option and JVM argument at its default, as an operator's deployment has it (call before {@link #up()}). */
    Deployment withDefaults() {
        settings.clear();
        jvmArgs.clear();
        return this;
    }

    /** Starts the nodes without a JVM argument they start with here, such as the first-tier compiler alone (call before {@link #up()}). */
    Deployment withoutJvmArg(String arg) {
        jvmArgs.remove(arg);
        return this;
    }

    /** A user of the deployment (deploy/p2psip users add); the nodes then run with --auth (call before {@link #up()}). */
    Deployment withUser(String userAtDomain, String password) {
        users.put(userAtDomain, password);
        return this;
    }

    /** Adds a user to the running deployment's users file, as an operator does; the nodes read it within a second. */
    void addUser(String userAtDomain, String password) {
        int code = command.run(60, "deploy/p2psip", "users", "add", userAtDomain, password, "--run-dir", runDir.toString());
        assertEquals(0, code, "deploy/p2psip users add " + userAtDomain + " failed; see " + command.log());
    }

    /** SIP over TLS on every node and the front, with keys made for the deployment (deploy/p2psip up --tls). */
    Deployment withTls() {
        this.tls = true;
        return this;
    }

    /** Overlay traffic between the nodes over mutual TLS, with SIP over TLS too (deploy/p2psip up --overlay-tls). */
    Deployment withOverlayTls() {
        this.overlayTls = true;
        return this;
    }

    /** The nodes' JVM heap (deploy/p2psip up --heap; call before {@link #up()}). */
    Deployment withHeap(String heap) {
        this.heap = heap;
        return this;
    }

    /** Starts the nodes (and the front); returns when each answers (deploy/p2psip up), else fails the test. */
    Deployment up() {
        List<String> args = new ArrayList<>(List.of("up", "--dht", dht, "--app", APP,
                "--nodes", String.valueOf(nodes), "--base-port", String.valueOf(basePort), "--heap", heap,
                "--run-dir", runDir.toString(), "--timeout", "300"));
        settings.forEach((name, value) -> args.addAll(List.of("--set", name + "=" + value)));
        jvmArgs.forEach(arg -> args.add("--jvm-arg=" + arg));
        if (frontPolicy != null) {
            args.addAll(List.of("--front", frontPolicy, "--front-port", String.valueOf(frontPort),
                    "--front-processes", String.valueOf(frontProcesses)));
        }
        if (sipTrace) {
            args.add("--sip-trace");
        }
        if (tls) {
            args.add("--tls");
        }
        if (overlayTls) {
            args.add("--overlay-tls");
        }
        users.forEach(this::addUser);
        if (!users.isEmpty()) {
            args.add("--auth");
        }
        int code = command.run(600, "deploy/p2psip", args.toArray(String[]::new));
        assertEquals(0, code, "deploy/p2psip up of " + name + " failed; see " + command.log()
                + " and " + runDir + "/node-*/logs/console.log");
        return this;
    }

    /** host:port of node i's SIP connectors. */
    String node(int i) {
        return "127.0.0.1:" + (basePort + i);
    }

    /** host:port of node i's TLS connector (see {@link #withTls}; deploy/README.md gives the offset). */
    String tlsNode(int i) {
        return "127.0.0.1:" + (basePort + 2000 + i);
    }

    /** host:port of the front's TLS listener: its port + 2000, as a node's (deploy/README.md, "TLS"). */
    String tlsFront() {
        return "127.0.0.1:" + (frontPort + 2000);
    }

    /** http://host:port/ of node i's status page and /metrics (deploy/p2psip's default HTTP offset, 3000). */
    String httpNode(int i) {
        return "http://127.0.0.1:" + (basePort + 3000 + i) + "/";
    }

    /** host:port of node i's overlay (deploy/p2psip's default overlay offset, 1000). */
    String overlay(int i) {
        return "127.0.0.1:" + (basePort + 1000 + i);
    }

    /** A value of node i's node.properties, as deploy/p2psip wrote it (the overlay's secret, say). */
    String nodeProperty(int i, String name) {
        var properties = new java.util.Properties();
        try (var in = java.nio.file.Files.newBufferedReader(runDir.resolve("node-" + i + "/node.properties"))) {
            properties.load(in);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return properties.getProperty(name, "");
    }

    /** The deployment CA's certificate, which a TLS client trusts (deploy/p2psip up --tls). */
    Path caCertificate() {
        return runDir.resolve("tls/ca.pem");
    }

    /** host:port of the front (see {@link #withFront}). */
    String front() {
        return "127.0.0.1:" + frontPort;
    }

    /** The front's stdout and stderr (its listening line, nodes up and down). */
    Path frontLog() {
        return runDir.resolve("front/console.log");
    }

    /** Node i's JVM output: the servlet's log lines and any error that reached no logger. */
    Path consoleLog(int i) {
        return runDir.resolve("node-" + i + "/logs/console.log");
    }

    /** Node i's container log: with a front, every SIP message the node sent or received. */
    Path containerLog(int i) {
        return runDir.resolve("node-" + i + "/logs/container.log");
    }

    /** What deploy/p2psip status prints: a line per process. */
    java.util.List<String> status() {
        return new Command("status-" + name).output(60, "deploy/p2psip", "status", "--run-dir", runDir.toString())
                .lines().toList();
    }

    /** KILLs node i without warning (deploy/p2psip kill): a crash. */
    void kill(int i) {
        int code = command.run(60, "deploy/p2psip", "kill", String.valueOf(i), "--run-dir", runDir.toString());
        assertEquals(0, code, "deploy/p2psip kill " + i + " failed; see " + command.log());
    }

    /** Starts node i again on its folder, empty but for what its backend keeps on disk (deploy/p2psip restart). */
    void restart(int i) {
        int code = command.run(300, "deploy/p2psip", "restart", String.valueOf(i), "--run-dir", runDir.toString(),
                "--timeout", "180");
        assertEquals(0, code, "deploy/p2psip restart " + i + " failed; see " + command.log());
    }

    @Override
    public void close() {
        int code = command.run(120, "deploy/p2psip", "down", "--run-dir", runDir.toString());
        assertEquals(0, code, "deploy/p2psip down of " + name + " failed; see " + command.log());
    }
}
