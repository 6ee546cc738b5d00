package org.p2psip.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The users file: read, bad lines skipped, read again when it changes, kept when it goes. */
class UsersFileTest {

    @TempDir
    Path dir;

    @Test
    void usersAreReadBadLinesSkippedAndTheFileReadAgainWhenItChanges() throws IOException {
        Path file = dir.resolve("users.csv");
        Files.write(file, List.of("# user,domain,md5,sha256", line("alice", "P2PSIP.test", "a"), "bob,p2psip.test,xyz,abc"));
        var users = new UsersFile(file);
        assertTrue(users.reload());
        assertEquals(1, users.size(), "bob's line is not HA1s");
        assertEquals(Optional.of(Algorithm.MD5.ha1("alice", "P2PSIP.test", "a")), users.ha1("alice", "p2psip.test", Algorithm.MD5));
        assertEquals(Optional.of(Algorithm.SHA_256.ha1("alice", "P2PSIP.test", "a")), users.ha1("alice", "p2psip.test", Algorithm.SHA_256));
        assertEquals(Optional.empty(), users.ha1("Alice", "p2psip.test", Algorithm.MD5), "users are case-sensitive");
        assertTrue(!users.reload(), "unchanged");

        Files.write(file, List.of(line("carol", "p2psip.test", "c")));
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 2000));
        assertTrue(users.reload());
        assertEquals(Optional.empty(), users.ha1("alice", "p2psip.test", Algorithm.MD5), "removed");
        assertTrue(users.ha1("carol", "p2psip.test", Algorithm.MD5).isPresent());

        Files.delete(file);
        assertTrue(!users.reload());
        assertTrue(users.ha1("carol", "p2psip.test", Algorithm.MD5).isPresent(), "a missing file keeps the users last loaded");
    }

    private static String line(String user, String domain, String password) {
        return user + "," + domain + "," + Algorithm.MD5.ha1(user, domain, password) + "," + Algorithm.SHA_256.ha1(user, domain, password);
    }
}
