package org.p2psip.integration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one program of the repository (deploy/p2psip, a sipp-scenarios run script) to its end
 * with a deadline, its output appended to a log file, and returns its exit code. Not thread-safe;
 * each test thread uses its own.
 */
final class Command {

    static final Path ROOT = Path.of(System.getProperty("p2psip.root", "../..")).toAbsolutePath().normalize();
    static final Path WORK = Path.of(System.getProperty("p2psip.it.work", "target/it")).toAbsolutePath();

    private final Path log;

    Command(String logName) {
        this.log = WORK.resolve(logName + ".log");
    }

    Path log() {
        return log;
    }

    /**
     * Runs ROOT/program with arguments and returns what it printed (also added to the log); fails
     * when it outlived the deadline or exited other than 0.
     */
    String output(long timeoutSeconds, String program, String... arguments) {
        try {
            long before = Files.exists(log) ? Files.size(log) : 0;
            int code = run(timeoutSeconds, program, arguments);
            byte[] all = Files.readAllBytes(log);
            String printed = new String(all, (int) before, all.length - (int) before, java.nio.charset.StandardCharsets.UTF_8);
            if (code != 0) {
                throw new IllegalStateException(program + " exited " + code + "; see " + log);
            }
            return printed.substring(printed.indexOf('\n') + 1); // after the "$ command" line
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs ROOT/program with arguments; the exit code, or -1 if it outlived the deadline (then killed). */
    int run(long timeoutSeconds, String program, String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(ROOT.resolve(program).toString());
        command.addAll(List.of(arguments));
        try {
            Files.createDirectories(WORK);
            Files.writeString(log, "$ " + String.join(" ", command) + "\n", java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
            Process process = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor();
                return -1;
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + program, e);
        }
    }
}
