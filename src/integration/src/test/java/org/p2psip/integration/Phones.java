package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One bench/sipload process of phones on TCP (or TLS), each on a connection of its own and listening
 * nowhere, registered through the front and then held open (--hold 0) while they answer what
 * comes down their connections. Ended by SIGTERM (it prints its summary) or SIGKILL (its
 * connections close at once, as a crashed phone's would).
 */
final class Phones implements AutoCloseable {

    static final Path JAR = Command.ROOT.resolve("bench/sipload/target/sipload.jar");
    private static final Pattern REGISTERED = Pattern.compile("sipload registered ok=(\\d+) failed=(\\d+)");

    private final Process process;
    private final Path log;

    private Phones(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts phones {@code offset}..{@code offset + count - 1} of {@code users} against {@code target},
     * at {@code rate} registrations per second, from the addresses {@code sources} (A-B in 127.0.0.0/8).
     */
    static Phones start(String name, String target, Path users, int offset, int count, int rate, String sources,
                        String... extra) {
        return startOver("tcp", name, target, users, offset, count, rate, sources, extra);
    }

    /** {@link #start} over {@code transport}, "tcp" or "tls" (with a --trust-store among {@code extra}). */
    static Phones startOver(String transport, String name, String target, Path users, int offset, int count, int rate,
                            String sources, String... extra) {
        Path log = Command.WORK.resolve("phones-" + name + ".log");
        List<String> command = new ArrayList<>(List.of("java", "-Xmx1g", "-jar", JAR.toString(), "--target", target,
                "--users", users.toString(), "--mode", "plain", "--transport", transport, "--offset", String.valueOf(offset),
                "--limit", String.valueOf(count), "--rate", String.valueOf(rate), "--sources", sources,
                "--outbound", "--hold", "0", "--expires", "3600"));
        command.addAll(List.of(extra));
        try {
            Files.createDirectories(Command.WORK);
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            return new Phones(process, log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until every phone has its final answer; fails unless all {@code count} were answered 200. */
    void awaitRegistered(int count, Duration patience) {
        Matcher m = awaitAnswered(patience);
        assertTrue(Integer.parseInt(m.group(1)) == count && m.group(2).equals("0"),
                "every phone registered: " + m.group() + "; see " + log);
    }

    /** Waits until every phone has its final answer, whatever it was; the "registered" line's match. */
    Matcher awaitAnswered(Duration patience) {
        long end = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < end) {
            Matcher m = REGISTERED.matcher(output());
            if (m.find()) {
                return m;
            }
            if (!process.isAlive()) {
                fail("sipload ended before its phones registered; see " + log);
            }
            sleepABit();
        }
        fail("the phones were not all answered within " + patience + "; see " + log);
        return null;
    }

    /** SIGTERM, then the fields of the summary line it prints on its way out. */
    Map<String, String> stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            fail("sipload did not end on SIGTERM; see " + log);
        }
        Map<String, String> fields = new HashMap<>();
        for (String line : output().split("\n")) {
            if (line.startsWith("sipload mode=")) {
                for (String field : line.split(" ")) {
                    int eq = field.indexOf('=');
                    if (eq > 0) {
                        fields.put(field.substring(0, eq), field.substring(eq + 1));
                    }
                }
            }
        }
        assertTrue(!fields.isEmpty(), "sipload printed its summary on SIGTERM; see " + log);
        return fields;
    }

    /** Waits until the phones' progress line counts {@code pongs} keep-alive answers, then {@link #stop}s them. */
    Map<String, String> stopAfterPongs(int pongs, Duration patience) throws InterruptedException {
        Pattern counted = Pattern.compile("keepalive_pongs=(\\d+)");
        long end = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < end) {
            Matcher m = counted.matcher(output());
            int last = 0;
            while (m.find()) {
                last = Integer.parseInt(m.group(1));
            }
            if (last >= pongs) {
                return stop();
            }
            sleepABit();
        }
        fail("fewer than " + pongs + " keep-alives answered within " + patience + "; see " + log);
        return Map.of();
    }

    /** SIGKILL: every connection of these phones closes at once. */
    void crash() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    private String output() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleepABit() {
        try {
            Thread.sleep(200); // polling a log file; the condition is what ends the wait
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly().waitFor();
        }
    }
}
