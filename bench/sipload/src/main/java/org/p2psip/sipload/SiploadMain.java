package org.p2psip.sipload;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * sipload: registers users over UDP, TCP or TLS, open loop, at a rate, optionally holds their
 * connections, and prints one summary line (README.md). Exit code 0 when every registration
 * completed, 1 when any failed, 2 for a bad command line (or more connections than the process
 * may open), 3 when it could not run (a file, the socket).
 */
public final class SiploadMain {

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
        // Over TCP and TLS the phones may hold their connections until a signal (--hold), which then
        // asks for the summary; a UDP run ends by itself, so a signal there ends the JVM as usual.
        Stop stop = options.stream() ? Stop.onSignals(System.out) : Stop.never();
        int code;
        try {
            code = run(options, System.out, options.quiet() ? null : System.err, stop);
        } catch (IOException | RuntimeException e) {
            System.err.println("sipload: " + e);
            code = 3;
        }
        System.out.flush();
        stop.exit(code);
    }

    /** Runs the load of {@code options}; the summary goes to {@code out}, progress to {@code progress} (null: none). */
    public static int run(LoadOptions options, PrintStream out, PrintStream progress) throws IOException {
        return run(options, out, progress, Stop.never());
    }

    static int run(LoadOptions options, PrintStream out, PrintStream progress, Stop stop) throws IOException {
        List<Phone> phones = phones(options);
        if (options.state() != null && java.nio.file.Files.exists(options.state())) {
            StateFile.load(options.state(), phones);
        }
        String tooMany = Capacity.problem(options, phones.size());
        if (tooMany != null) {
            System.err.println("sipload: " + tooMany);
            return 2;
        }
        var ids = new Ids();
        try (LoadTransport transport = Transports.open(options, ids)) {
            stop.wakeWith(transport::wakeup);
            var loop = new OpenLoop(transport, Timing.of(options.t1Millis(), options.timeoutMillis()), stop);
            long primed = 0;
            List<Phone> ready = phones;
            if (options.mode() == Mode.REFRESH) {
                primed = prime(options, loop, ids, transport, phones, progress);
                ready = phones.stream().filter(Phone::canRefresh).toList();
                if (ready.isEmpty()) {
                    System.err.println("sipload: no phone could register, so none can refresh");
                    return 1;
                }
            }
            var flow = new RegisterFlow(options.mode(), options.algorithm(), ids, transport.name(), options.outbound(),
                    options.expires(), options.retry503());
            long attempts = options.plannedAttempts(ready.size());
            Tally tally;
            try (AttemptLog log = options.csv() == null ? null : new AttemptLog(options.csv())) {
                tally = loop.run(flow, new ArrayDeque<>(ready), attempts, options.rate(),
                        new Progress(progress, options.mode().wireName()), log);
            }
            double held = registeredThenHeld(options, out, progress, stop, transport, tally, phones);
            if (options.state() != null) {
                StateFile.save(options.state(), phones);
            }
            out.println(Summary.line(options, attempts, tally, primed, transport.connections(), phones, held));
            out.flush();
            return tally.failed() == 0 ? 0 : 1;
        }
    }

    /**
     * Over TCP and TLS: says that every registration has its final answer (what a test waits for), then
     * holds the connections for --hold. Returns the seconds held.
     */
    private static double registeredThenHeld(LoadOptions options, PrintStream out, PrintStream progress, Stop stop,
                                             LoadTransport transport, Tally tally, List<Phone> phones) throws IOException {
        if (!options.stream()) {
            return 0;
        }
        out.println("sipload registered ok=" + tally.completed + " failed=" + tally.failed());
        out.flush();
        if (options.holdSeconds() < 0 || stop.requested()) {
            return 0;
        }
        long start = System.nanoTime();
        tally.strays += new Hold(transport, stop, progress).run(options.holdSeconds(), phones);
        return (System.nanoTime() - start) / 1e9;
    }

    /** The phones of the users file's users from --offset on, --limit of them. */
    private static List<Phone> phones(LoadOptions options) throws IOException {
        List<User> users = UsersCsv.read(options.users());
        int from = Math.min(options.offset(), users.size());
        int to = options.limit() > 0 ? Math.min(users.size(), from + options.limit()) : users.size();
        users = users.subList(from, to);
        if (users.isEmpty()) {
            throw new IllegalArgumentException(options.users() + " holds no user"
                    + (options.offset() > 0 ? " from --offset " + options.offset() + " on" : ""));
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
    private static long prime(LoadOptions options, OpenLoop loop, Ids ids, LoadTransport transport,
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
        var first = new RegisterFlow(Mode.FIRST, options.algorithm(), ids, transport.name(), options.outbound(),
                options.expires(), options.retry503());
        Tally tally = loop.run(first, unprimed, count, options.primeRate(), new Progress(progress, "prime"), null);
        if (progress != null) {
            progress.printf("sipload primed %d of %d phones (%d failed)%n", tally.completed, count, tally.failed());
        }
        return tally.completed;
    }
}
