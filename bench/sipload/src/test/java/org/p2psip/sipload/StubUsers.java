package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/** The tests' users (u0, u1, ... with passwords pw0, pw1, ...) and their reading of the summary line. */
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
}
