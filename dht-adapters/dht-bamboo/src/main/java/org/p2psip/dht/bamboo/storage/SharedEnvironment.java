package org.p2psip.dht.bamboo.storage;

import com.sleepycat.je.DatabaseException;
import com.sleepycat.je.DatabaseNotFoundException;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.p2psip.config.Config;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.bamboo.BambooOptions;

/**
 * One JE environment that many simulated nodes share, each with databases of its own named
 * after its address ({@code <address>/values}, {@code <address>/by-expiry}): a simulation of
 * thousands of nodes in one JVM cannot give each an environment, with its files and its threads.
 * Writes commit without sync ({@link DirectCommit}). The simulation opens it once, before its
 * nodes, and closes it after them; a node closed or crashed closes its databases, which stay in
 * the environment (a node restarted at the same address finds its records, as after a reboot)
 * until {@link #remove}d. Not thread-safe: one simulation thread uses it.
 */
public final class SharedEnvironment implements AutoCloseable {

    private final Path dir;
    private final Environment env;
    private final Map<String, JeStorage> open = new LinkedHashMap<>();

    private SharedEnvironment(Path dir, Environment env) {
        this.dir = dir;
        this.env = env;
    }

    /**
     * Opens (creating if needed) the environment in {@code dir}, its cache and disk limits from
     * {@code p2psip.bamboo.je.cache.bytes} and {@code p2psip.bamboo.je.max.disk.bytes}.
     *
     * @throws DhtException STORAGE if JE cannot open it
     */
    public static SharedEnvironment open(Path dir, Config config) {
        try {
            Files.createDirectories(dir);
            EnvironmentConfig envConfig = JeStorage.environmentConfig(config);
            envConfig.setDurability(Durability.COMMIT_NO_SYNC);
            return new SharedEnvironment(dir, new Environment(dir.toFile(), envConfig));
        } catch (IOException | DatabaseException e) {
            throw new DhtException(Reason.STORAGE, "cannot open the shared JE environment in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** A node's storage, in databases named after {@code name} (its address), completing on the caller's thread. */
    JeStorage storage(String name, Clock clock) {
        if (open.containsKey(name)) {
            throw new IllegalStateException("a node named " + name + " already has its storage open in " + dir);
        }
        JeStorage storage = JeStorage.openIn(env, name + "/", counters -> new DirectCommit(env, counters), clock,
                dir, () -> open.remove(name));
        open.put(name, storage);
        return storage;
    }

    /** Drops the databases of the node named {@code name} (closed: stopped or crashed), and so its records. */
    public void remove(String name) {
        if (open.containsKey(name)) {
            throw new IllegalStateException("the node named " + name + " still has its storage open");
        }
        for (String db : JeStorage.databaseNames(name + "/")) {
            try {
                env.removeDatabase(null, db);
            } catch (DatabaseNotFoundException absent) {
                // never opened, or removed already: nothing to drop
            }
        }
    }

    /** Nodes whose storage is open now. */
    public int openStores() {
        return open.size();
    }

    public Path dir() {
        return dir;
    }

    /** Closes the storage of every node still open, then the environment. */
    @Override
    public void close() {
        new ArrayList<>(open.values()).forEach(JeStorage::close);
        try {
            env.close();
        } catch (DatabaseException e) {
            throw new DhtException(Reason.STORAGE, "closing the shared JE environment in " + dir + " failed", e);
        }
    }
}
