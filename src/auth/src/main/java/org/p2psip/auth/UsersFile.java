package org.p2psip.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Users from a file every node of a deployment reads: one line per user,
 * {@code user,domain,md5-ha1,sha256-ha1}, '#' starts a comment. {@link #reload()} reads it again
 * when it changed (the node calls it on a timer, never on a request); a request reads the map
 * last loaded. A file that is missing or unreadable leaves the users last loaded in place.
 */
public final class UsersFile implements Users {

    private static final Logger LOG = Logger.getLogger(UsersFile.class.getName());
    private final Path file;
    private volatile Map<String, List<String>> byUser = Map.of();
    private FileTime loaded;

    public UsersFile(Path file) {
        this.file = file;
    }

    @Override
    public Optional<String> ha1(String user, String realm, Algorithm algorithm) {
        List<String> hashes = byUser.get(key(user, realm));
        return hashes == null ? Optional.empty() : Optional.of(hashes.get(algorithm == Algorithm.MD5 ? 0 : 1));
    }

    /** How many users the map last loaded holds. */
    public int size() {
        return byUser.size();
    }

    /** Reads the file again if its modification time moved; returns whether it did. */
    public synchronized boolean reload() {
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            if (modified.equals(loaded)) {
                return false;
            }
            byUser = parse(Files.readAllLines(file, StandardCharsets.UTF_8));
            loaded = modified;
            LOG.log(Level.INFO, "{0} user(s) loaded from {1}", new Object[] {byUser.size(), file});
            return true;
        } catch (NoSuchFileException e) {
            if (loaded != null || byUser.isEmpty()) {
                LOG.log(Level.WARNING, "users file {0} is missing: keeping the {1} user(s) last loaded",
                        new Object[] {file, byUser.size()});
                loaded = null;
            }
            return false;
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot read users file {0}: {1}; keeping the users last loaded", new Object[] {file, e});
            return false;
        }
    }

    static Map<String, List<String>> parse(List<String> lines) {
        var users = new HashMap<String, List<String>>();
        int number = 0;
        for (String raw : lines) {
            number++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (f.length != 4 || f[0].isBlank() || f[1].isBlank() || !hex(f[2], 32) || !hex(f[3], 64)) {
                LOG.log(Level.WARNING, "users file line {0} skipped: want user,domain,md5-ha1,sha256-ha1", number);
                continue;
            }
            users.put(key(f[0].strip(), f[1].strip()), List.of(f[2].toLowerCase(Locale.ROOT), f[3].toLowerCase(Locale.ROOT)));
        }
        return Map.copyOf(users);
    }

    private static boolean hex(String s, int length) {
        return s.length() == length && s.chars().allMatch(c -> Character.digit(c, 16) >= 0);
    }

    /** Users are case-sensitive (RFC 3261 §19.1.4), domains are not. */
    private static String key(String user, String domain) {
        return user + "@" + domain.toLowerCase(Locale.ROOT);
    }
}
