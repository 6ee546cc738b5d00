package org.p2psip.sipload;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * sipload: registers users over UDP, open loop, at a rate, and prints one summary line (README.md).
 * Exit code 0 when every registration completed, 1 when any failed, 2 for a bad command line,
 * 3 when it could not run (a file, the socket).
 */
public final class SiploadMain {
    /** The kernel's receive buffer asked for, as the nodes', SIPp's and Kamailio's in the bench: bursts meet room alike. */
    private static final int SOCKET_BUFFER_BYTES = 2 * 1024 * 1024;

    private SiploadMain() {
    }

    public static void main(String[] args) {
        LoadOptions options;
        try {
            options = LoadOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("sipload: " + e.getMessage());
            System.err.print(LoadOptions.USAGE);
            System.exit(2);
            return;
        }
        try {
            System.exit(run(options, System.out, options.quiet() ? null : System.err));
        } catch (IOException | RuntimeException e) {
            System.err.println("sipload: " + e);
            System.exit(3);
        }
    }

    /** Runs the load of {@code options}; the summary goes to {@code out}, progress to {@code progress} (null: none). */
    public static int run(LoadOptions options, PrintStream out, PrintStream progress) throws IOException {
        List<Phone> phones = phones(options);
        if (options.state() != null && Files.exists(options.state())) {
            StateFile.load(options.state(), phones);
        }
        try (DatagramChannel channel = open(options)) {
            var local = (InetSocketAddress) channel.getLocalAddress();
            var ids = new Ids();
            var here = new RegisterRequest.Local(local.getAddress().getHostAddress(), local.getPort());
            var loop = new OpenLoop(channel, Timing.of(options.t1Millis(), options.timeoutMillis()));
            long primed = 0;
            List<Phone> ready = phones;
            if (options.mode() == Mode.REFRESH) {
                primed = prime(options, loop, ids, here, phones, progress);
                ready = phones.stream().filter(Phone::canRefresh).toList();
                if (ready.isEmpty()) {
                    System.err.println("sipload: no phone could register, so none can refresh");
                    return 1;
                }
            }
            var flow = new RegisterFlow(options.mode(), options.algorithm(), ids, here, options.expires());
            long attempts = options.plannedAttempts(ready.size());
            Tally tally;
            try (AttemptLog log = options.csv() == null ? null : new AttemptLog(options.csv())) {
                tally = loop.run(flow, new ArrayDeque<>(ready), attempts, options.rate(),
                        new Progress(progress, options.mode().wireName()), log);
            }
            if (options.state() != null) {
                StateFile.save(options.state(), phones);
            }
            out.println(Summary.line(options, attempts, tally, primed));
            out.flush();
            return tally.failed() == 0 ? 0 : 1;
        }
    }

    private static List<Phone> phones(LoadOptions options) throws IOException {
        List<User> users = UsersCsv.read(options.users());
        if (options.limit() > 0 && users.size() > options.limit()) {
            users = users.subList(0, options.limit());
        }
        if (users.isEmpty()) {
            throw new IllegalArgumentException(options.users() + " holds no user");
        }
        var phones = new ArrayList<Phone>(users.size());
        for (User user : users) {
            phones.add(new Phone(user));
        }
        return phones;
    }

    /**
     * A refresh needs a registration to refresh: each phone without one (no --state, or not in it)
     * first registers once, at --prime-rate, unmeasured. Returns how many were primed.
     */
    private static long prime(LoadOptions options, OpenLoop loop, Ids ids, RegisterRequest.Local here,
                              List<Phone> phones, PrintStream progress) throws IOException {
        var unprimed = new ArrayDeque<Phone>();
        for (Phone phone : phones) {
            if (!phone.canRefresh()) {
                unprimed.add(phone);
            }
        }
        if (unprimed.isEmpty()) {
            return 0;
        }
        int count = unprimed.size();
        var first = new RegisterFlow(Mode.FIRST, options.algorithm(), ids, here, options.expires());
        Tally tally = loop.run(first, unprimed, count, options.primeRate(), new Progress(progress, "prime"), null);
        if (progress != null) {
            progress.printf("sipload primed %d of %d phones (%d failed)%n", tally.completed, count, tally.failed());
        }
        return tally.completed;
    }

    private static DatagramChannel open(LoadOptions options) throws IOException {
        DatagramChannel channel = DatagramChannel.open();
        try {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
            channel.bind(options.bind());
            // Connected: only the target's datagrams arrive, and the local address is the one toward it.
            channel.connect(options.target());
            channel.configureBlocking(false);
            return channel;
        } catch (IOException e) {
            channel.close();
            throw e;
        }
    }
}
