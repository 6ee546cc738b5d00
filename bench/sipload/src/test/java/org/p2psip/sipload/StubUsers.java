package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** The tests' users (u0, u1, ... with passwords pw0, pw1, ...), their reading of the summary line, their waits. */
final class StubUsers {

    private StubUsers() {
    }

    static Map<String, String> passwords(int count) {
        Map<String, String> passwords = new HashMap<>();
        for (int i = 0; i < count; i++) {
            passwords.put("u" + i, "pw" + i);
        }
        return passwords;
    }

    /** The users file of {@link #passwords}, in user order. */
    static Path write(Path folder, int count) throws IOException {
        var lines = new ArrayList<String>();
        for (int i = 0; i < count; i++) {
            lines.add("u" + i + "," + RegistrarStub.DOMAIN + ",pw" + i);
        }
        return Files.write(folder.resolve("users.csv"), lines);
    }

    /** The key=value fields of a summary line. */
    static Map<String, String> summary(String line) {
        assertTrue(line.startsWith("sipload mode="), line);
        Map<String, String> fields = new HashMap<>();
        for (String field : line.substring("sipload ".length()).split(" ")) {
            int eq = field.indexOf('=');
            fields.put(field.substring(0, eq), field.substring(eq + 1));
        }
        return fields;
    }

    /** The fields of the last line written to {@code out}: the summary. */
    static Map<String, String> lastSummary(ByteArrayOutputStream out) {
        String[] lines = out.toString(StandardCharsets.UTF_8).strip().split("\n");
        return summary(lines[lines.length - 1]);
    }

    /** Waits until {@code condition} holds, failing the test after {@code seconds}. */
    static void waitFor(BooleanSupplier condition, int seconds) throws InterruptedException {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (!condition.getAsBoolean() && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertTrue(condition.getAsBoolean(), "not in " + seconds + " s");
    }

    /** sipload run as its command line runs it, with {@code args}, the summary to {@code out}; its exit code. */
    static int run(ByteArrayOutputStream out, List<String> args) {
        try {
            return SiploadMain.run(LoadOptions.parse(args.toArray(String[]::new)),
                    new PrintStream(out, true, StandardCharsets.UTF_8), null);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
