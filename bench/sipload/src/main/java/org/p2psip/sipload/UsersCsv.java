package org.p2psip.sipload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The users file: one {@code user,domain,password} line per user, as deploy/p2psip's
 * {@code users import} and {@code up --users} read it; blank lines and lines starting with '#'
 * are skipped. The domain is the realm, in lower case, as the nodes use it.
 */
public final class UsersCsv {

    private UsersCsv() {
    }

    public static List<User> read(Path file) throws IOException {
        var users = new ArrayList<User>();
        int number = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            number++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.split(",", -1);
            if (fields.length != 3 || fields[0].isBlank() || fields[1].isBlank() || fields[2].isEmpty()) {
                throw new IllegalArgumentException(file + ":" + number + ": want user,domain,password, got " + line);
            }
            users.add(new User(fields[0].strip(), fields[1].strip().toLowerCase(Locale.ROOT), fields[2]));
        }
        return users;
    }
}
