package org.p2psip.front;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.config.Option;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.policies.Policies;
import org.p2psip.front.status.FrontStatus;
import org.p2psip.front.wire.Addresses;

/**
 * {@code java -jar p2psip-front.jar [--config FILE] [--listen IP:PORT] [--nodes IP:PORT,...] [--policy P] ...}:
 * every option of {@link FrontOptions} as a flag; flags override the file. Runs until SIGTERM or
 * SIGINT, then closes its sockets and exits.
 */
public final class FrontMain {

    private FrontMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Config config;
        try {
            config = parse(args);
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("p2psip-front: " + e.getMessage());
            usage(System.err);
            System.exit(2);
            return;
        }
        if (config == null) {
            usage(System.out);
            return;
        }
        Front front;
        try {
            front = Front.start(config);
        } catch (IllegalArgumentException e) { // a key store that went away since parse, a wildcard address
            System.err.println("p2psip-front: " + e.getMessage());
            System.exit(2);
            return;
        }
        FrontStatus status;
        try {
            status = FrontStatus.start(config.get(FrontOptions.STATUS),
                    NodeOptions.list(config.get(FrontOptions.STATUS_MEMBERS)), config.get(FrontOptions.POLICY), front);
        } catch (RuntimeException e) { // its address taken, or not one of this host's
            System.err.println("p2psip-front: " + e.getMessage());
            front.close();
            System.exit(2);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (status != null) {
                status.close();
            }
            front.close();
        }, "p2psip-front-shutdown"));
        warmUp(config, front);
        System.out.println(listening(front));
    }

    /** Runs the front's warm-up ({@link FrontWarmup}) and logs what it did; never fails the start. */
    private static void warmUp(Config config, Front front) throws InterruptedException {
        int requests = config.get(FrontOptions.WARMUP_REQUESTS);
        if (requests <= 0) {
            return;
        }
        var log = System.getLogger(FrontMain.class.getName());
        long start = System.nanoTime();
        long deadline = start + config.get(FrontOptions.WARMUP_TIMEOUT).toNanos();
        try {
            int answered = new FrontWarmup(front.address(), requests)
                    .run(() -> front.nodes().stream().anyMatch(Node::up), deadline);
            log.log(System.Logger.Level.INFO, "warm-up done: {0} of {1} requests through the front answered in {2} ms",
                    answered, requests, (System.nanoTime() - start) / 1_000_000);
        } catch (IOException e) {
            log.log(System.Logger.Level.WARNING, "warm-up stopped: " + e.getMessage());
        }
    }

    /**
     * The line that says the front is up: {@code p2psip-front listening on IP:PORT (udp, tcp)}, with
     * {@code , tls PORT} before the parenthesis closes if it listens for TLS. deploy/ waits for its
     * beginning (deploy/p2psip_deploy/front.py), so that stays as it is.
     */
    static String listening(Front front) {
        String tls = front.tlsAddress() == null ? "" : ", tls " + front.tlsAddress().getPort();
        return "p2psip-front listening on " + front.address().getAddress().getHostAddress() + ":"
                + front.address().getPort() + " (udp, tcp" + tls + ")";
    }

    /** The configuration the arguments describe, or null if they ask for help. */
    static Config parse(String[] args) throws IOException {
        Config config = Config.empty();
        var flags = new HashMap<String, String>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                return null;
            }
            String name = arg;
            String value;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException(arg + " needs a value");
            }
            if (name.equals("--config")) {
                config = Config.load(Path.of(value));
            } else {
                flags.put(name, value);
            }
        }
        for (var flag : flags.entrySet()) {
            Option<?> option = FrontOptions.ALL.stream().filter(o -> FrontOptions.flag(o).equals(flag.getKey()))
                    .findFirst().orElseThrow(() -> new IllegalArgumentException("unknown option " + flag.getKey()));
            config = config.with(option.name(), flag.getValue());
        }
        var unknown = config.unknown(FrontOptions.PREFIX, FrontOptions.ALL);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown options in the file: " + unknown);
        }
        for (Option<?> option : FrontOptions.ALL) {
            config.get(option); // reads every value now, so a bad one stops the front before it binds
        }
        if (config.get(FrontOptions.NODES).isBlank()) {
            throw new IllegalArgumentException(FrontOptions.flag(FrontOptions.NODES) + " is required");
        }
        Policies.named(config.get(FrontOptions.POLICY), config.get(FrontOptions.INVITE_WEIGHT));
        checkTls(config);
        return config;
    }

    /** A TLS port must be a port other than the listen port's, with a key store that reads. */
    private static void checkTls(Config config) {
        int port = config.get(FrontOptions.TLS_PORT);
        if (port == 0) {
            return;
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(FrontOptions.flag(FrontOptions.TLS_PORT) + " " + port + " out of range");
        }
        if (port == Addresses.parse(config.get(FrontOptions.LISTEN)).getPort()) {
            throw new IllegalArgumentException(FrontOptions.flag(FrontOptions.TLS_PORT) + " " + port
                    + " is the listen port, where plain TCP is; TLS needs a port of its own");
        }
        Front.tlsContext(config);
    }

    private static void usage(PrintStream out) {
        out.println("usage: java -jar p2psip-front.jar [--config FILE] [--option value ...]");
        for (Option<?> option : FrontOptions.ALL) {
            out.printf("  %-22s %s (default %s)%n", FrontOptions.flag(option), option.meaning(), option.defaultText());
        }
    }
}
