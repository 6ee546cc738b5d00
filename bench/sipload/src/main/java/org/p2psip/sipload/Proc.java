package org.p2psip.sipload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What sipload reads of Linux's /proc: its open-file limit (a connection is a file), the
 * ephemeral port range (the connections one source address can hold) and its resident memory.
 * Each answer is -1 where the file is missing or unreadable (another system): then nothing is checked.
 */
final class Proc {
    /** Files the JVM itself holds or may open (jars, the selector's, logs): left out of the connections' share. */
    static final int JVM_FILES = 200;

    private Proc() {
    }

    /** The soft limit on open files ("Max open files" of /proc/self/limits, as ulimit -n says). */
    static long openFileLimit() {
        for (String line : lines("/proc/self/limits")) {
            if (line.startsWith("Max open files")) {
                String[] words = line.substring("Max open files".length()).trim().split("\\s+");
                return words[0].equals("unlimited") ? Long.MAX_VALUE : parse(words[0]);
            }
        }
        return -1;
    }

    /** How many local ports the system hands out to bind(port 0), per address. */
    static long ephemeralPorts() {
        var lines = lines("/proc/sys/net/ipv4/ip_local_port_range");
        if (lines.length == 0) {
            return -1;
        }
        String[] range = lines[0].trim().split("\\s+");
        return range.length == 2 ? parse(range[1]) - parse(range[0]) + 1 : -1;
    }

    /** VmRSS of /proc/self/status, in KiB. */
    static long residentKib() {
        for (String line : lines("/proc/self/status")) {
            if (line.startsWith("VmRSS:")) {
                return parse(line.substring(6).trim().split("\\s+")[0]);
            }
        }
        return -1;
    }

    private static String[] lines(String file) {
        try {
            return Files.readString(Path.of(file), StandardCharsets.US_ASCII).split("\n");
        } catch (IOException | RuntimeException e) {
            return new String[0];
        }
    }

    private static long parse(String number) {
        try {
            return Long.parseLong(number);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
