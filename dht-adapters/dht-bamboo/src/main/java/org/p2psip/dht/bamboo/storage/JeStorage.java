package org.p2psip.dht.bamboo.storage;

import com.sleepycat.je.Cursor;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.DatabaseException;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import com.sleepycat.je.SecondaryConfig;
import com.sleepycat.je.SecondaryCursor;
import com.sleepycat.je.SecondaryDatabase;
import com.sleepycat.je.Transaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.p2psip.config.Config;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.bamboo.BambooOptions;
import org.p2psip.dht.ring.Id;

/**
 * One node's values in a Berkeley DB JE environment: a primary database keyed by key and value
 * hash, and a secondary database keyed by expiry that the sweep walks (layout in
 * {@link RecordLayout}). Every JE call runs on the environment's {@link GroupCommit} thread, so a
 * caller never waits on the disk and every read-modify-write of this node is serialised; in a
 * simulation, many nodes' databases share one {@link SharedEnvironment} and their work runs on
 * the caller's thread instead ({@link DirectCommit}).
 * A value is live until its expiry, read from {@code clock}; expired records are ignored on read
 * and deleted by {@link #sweep}. Thread-safe.
 */
public final class JeStorage implements ValueStore, AutoCloseable {

    private static final int SWEEP_BATCH = 2_000;
    /** JE refuses writes when the disk has less free space than this (its own default is 5 GB). */
    private static final String FREE_DISK_BYTES = String.valueOf(64L << 20);
    // the counters of metrics(); GroupCommit counts the first three
    static final String WRITES = "bamboo.storage.writes";
    static final String FSYNCS = "bamboo.storage.fsyncs";
    static final String REFUSED = "bamboo.storage.refused";
    static final String SWEPT = "bamboo.storage.swept";

    private final Path dir;
    private final Database values;
    private final SecondaryDatabase byExpiry;
    private final Commit commit;
    private final Clock clock;
    private final Counters counters;
    private final Runnable afterClose;
    private volatile boolean closed;

    private JeStorage(Path dir, Database values, SecondaryDatabase byExpiry, Commit commit, Clock clock,
                      Counters counters, Runnable afterClose) {
        this.dir = dir;
        this.counters = counters;
        this.values = values;
        this.byExpiry = byExpiry;
        this.commit = commit;
        this.clock = clock;
        this.afterClose = afterClose;
    }

    /**
     * Opens (creating if needed) the environment in {@code dir}. Blocks while JE opens and
     * recovers its log: call it at node start, not on a request path.
     *
     * @param callbacks where the returned stages complete (the node's event loop)
     */
    public static JeStorage open(Path dir, Config config, Clock clock, Executor callbacks) {
        Environment env = null;
        try {
            Files.createDirectories(dir);
            env = new Environment(dir.toFile(), environmentConfig(config));
            Environment opened = env;
            return openIn(env, "", counters -> new GroupCommit(opened, config.get(BambooOptions.STORAGE_QUEUE),
                    config.get(BambooOptions.STORAGE_BATCH), config.get(BambooOptions.STORAGE_FSYNC), callbacks,
                    "bamboo-storage-" + dir.getFileName(), counters), clock, dir, env::close);
        } catch (IOException | DatabaseException e) {
            if (env != null) {
                env.close();
            }
            throw new DhtException(Reason.STORAGE, "cannot open the JE environment in " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * A simulated node's storage in an environment it shares with many others, in databases
     * named after {@code name} (its address). Stages are complete when returned: the work runs
     * on the caller's thread, the node's loop. Closing it closes its databases, not the
     * environment.
     *
     * @throws IllegalStateException if a node of that name has its storage open there already
     */
    public static JeStorage open(SharedEnvironment shared, String name, Clock clock) {
        return shared.storage(name, clock);
    }

    /** The environment settings of a node's storage: transactional, the JVM's shared cache, and the disk limits. */
    static EnvironmentConfig environmentConfig(Config config) {
        var envConfig = new EnvironmentConfig().setAllowCreate(true).setTransactional(true).setSharedCache(true);
        envConfig.setCacheSize(config.get(BambooOptions.JE_CACHE_BYTES));
        envConfig.setDurability(Durability.COMMIT_WRITE_NO_SYNC);
        envConfig.setConfigParam(EnvironmentConfig.FREE_DISK, FREE_DISK_BYTES);
        long maxDisk = config.get(BambooOptions.JE_MAX_DISK_BYTES);
        if (maxDisk > 0) {
            envConfig.setConfigParam(EnvironmentConfig.MAX_DISK, String.valueOf(maxDisk));
        }
        return envConfig;
    }

    /** The databases of one node's storage, their names after {@code prefix}: values first. */
    static List<String> databaseNames(String prefix) {
        return List.of(prefix + "values", prefix + "by-expiry");
    }

    /**
     * Opens one node's databases in {@code env}, named after {@code prefix}, with work run by
     * the commit {@code commits} makes (given the counters it keeps); {@code afterClose} runs
     * once they are closed.
     */
    static JeStorage openIn(Environment env, String prefix, Function<Counters, Commit> commits, Clock clock, Path dir,
                            Runnable afterClose) {
        List<String> names = databaseNames(prefix);
        var dbConfig = new DatabaseConfig().setAllowCreate(true).setTransactional(true);
        Database values = env.openDatabase(null, names.get(0), dbConfig);
        SecondaryDatabase byExpiry;
        try {
            var secondary = new SecondaryConfig();
            secondary.setAllowCreate(true).setTransactional(true).setSortedDuplicates(true);
            secondary.setKeyCreator((db, key, data, result) -> {
                result.setData(RecordLayout.expiryKey(data.getData()));
                return true;
            });
            byExpiry = env.openSecondaryDatabase(null, names.get(1), values, secondary);
        } catch (DatabaseException e) {
            values.close();
            throw e;
        }
        var counters = new Counters();
        return new JeStorage(dir, values, byExpiry, commits.apply(counters), clock, counters, afterClose);
    }

    @Override
    public CompletionStage<Void> put(Id key, byte[] value, Duration ttl, byte[] secretHash) {
        if (value.length == 0 || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("a put needs a non-empty value and a positive time to live");
        }
        long expiresAt = clock.millis() + ttl.toMillis();
        return update(key, current -> StoredValues.withPut(current, value, expiresAt, secretHash)).thenApply(v -> null);
    }

    @Override
    public CompletionStage<Page> get(Id key, int max, byte[] placemark) {
        return commit.submit(txn -> page(key, max, placemark), false);
    }

    @Override
    public CompletionStage<Removal> remove(Id key, byte[] valueHash, byte[] secret) {
        byte[] secretHash = Id.sha1(secret);
        return commit.submit(txn -> {
            List<StoredValue> current = read(txn, key);
            StoredValue target = StoredValues.find(current, valueHash, clock.millis());
            if (target == null) {
                return Removal.ABSENT;
            }
            if (!MessageDigest.isEqual(target.secretHash(), secretHash)) {
                return Removal.WRONG_SECRET;
            }
            write(txn, key, List.of(target.asRemoved(StoredValue.maxStamp(current) + 1)));
            return Removal.REMOVED;
        }, true);
    }

    /**
     * Replaces the key's values (tombstones included, expired ones left out) by what
     * {@code change} returns, in one transaction; returning its argument or null changes
     * nothing. Completes with the values the key holds afterwards, once they are durable.
     */
    public CompletionStage<List<StoredValue>> update(Id key, UnaryOperator<List<StoredValue>> change) {
        return commit.submit(txn -> {
            List<StoredValue> current = read(txn, key);
            List<StoredValue> next = change.apply(current);
            if (next == null || next == current) {
                return current;
            }
            replace(txn, key, current, next);
            return next;
        }, true);
    }

    /** The key's values, tombstones included: what a replica needs to hold the same state. */
    public CompletionStage<List<StoredValue>> values(Id key) {
        return commit.submit(txn -> read(null, key), false);
    }

    /** Merges a copy from another node into what this node holds ({@link StoredValues#merge}). */
    public CompletionStage<List<StoredValue>> merge(Id key, List<StoredValue> copy) {
        return update(key, current -> StoredValues.merge(key, copy, current, clock.millis()));
    }

    /**
     * Merges each copy into what this node holds, in one transaction; completes with the keys
     * whose merge made values anew, neither held nor copied (two roots' records merged), which
     * the node sends on to their other holders.
     */
    public CompletionStage<List<KeyValues>> mergeAll(List<KeyValues> copies) {
        return commit.submit(txn -> {
            List<KeyValues> made = new ArrayList<>();
            long now = clock.millis();
            for (KeyValues copy : copies) {
                List<StoredValue> current = read(txn, copy.key());
                List<StoredValue> next = StoredValues.merge(copy.key(), copy.values(), current, now);
                if (next != null) {
                    replace(txn, copy.key(), current, next);
                    if (!copy.values().containsAll(next)) {
                        made.add(new KeyValues(copy.key(), next));
                    }
                }
            }
            return made;
        }, true);
    }

    /**
     * Every key holding an unexpired record, with its values (tombstones included), in key order:
     * what a repair pass pushes to the nodes that should hold copies. Reads the whole store
     * into memory; a store larger than memory would need paging by key range.
     */
    public CompletionStage<List<KeyValues>> snapshot() {
        return commit.submit(txn -> {
            List<KeyValues> out = new ArrayList<>();
            long now = clock.millis();
            Id key = null;
            List<StoredValue> group = new ArrayList<>();
            try (Cursor cursor = values.openCursor(null, null)) {
                var k = new DatabaseEntry();
                var d = new DatabaseEntry();
                while (cursor.getNext(k, d, LockMode.DEFAULT) == OperationStatus.SUCCESS) {
                    Id id = RecordLayout.keyId(k.getData());
                    if (!id.equals(key)) {
                        if (!group.isEmpty()) {
                            out.add(new KeyValues(key, group));
                        }
                        key = id;
                        group = new ArrayList<>();
                    }
                    StoredValue v = RecordLayout.value(d.getData());
                    if (v.expiresAt() > now) {
                        group.add(v);
                    }
                }
            }
            if (!group.isEmpty()) {
                out.add(new KeyValues(key, group));
            }
            return out;
        }, false);
    }

    /** Deletes records past their expiry, oldest first, through the expiry index. Completes with the count. */
    public CompletionStage<Integer> sweep() {
        return commit.submit(txn -> {
            long now = clock.millis();
            int deleted = 0;
            try (SecondaryCursor cursor = byExpiry.openCursor(txn, null)) {
                var expiry = new DatabaseEntry();
                var primaryKey = new DatabaseEntry();
                var data = new DatabaseEntry();
                while (deleted < SWEEP_BATCH
                        && cursor.getNext(expiry, primaryKey, data, LockMode.RMW) == OperationStatus.SUCCESS
                        && RecordLayout.expiry(expiry.getData()) <= now) {
                    cursor.delete();
                    deleted++;
                }
            }
            counters.add(SWEPT, deleted);
            return deleted;
        }, true);
    }

    public Map<String, Long> metrics() {
        var metrics = counters.snapshot(WRITES, FSYNCS, REFUSED, SWEPT);
        metrics.put("bamboo.storage.queued", (long) commit.queued());
        return metrics;
    }

    public Path dir() {
        return dir;
    }

    /**
     * Finishes queued work, then closes the databases and the environment (a shared one stays
     * open: only this node's databases close). Closing twice does nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        commit.close();
        try {
            byExpiry.close();
            values.close();
            afterClose.run();
        } catch (DatabaseException e) {
            throw new DhtException(Reason.STORAGE, "closing the JE storage in " + dir + " failed", e);
        }
    }

    private Page page(Id key, int max, byte[] placemark) {
        long now = clock.millis();
        List<Found> found = new ArrayList<>();
        byte[] last = new byte[0];
        boolean more = false;
        try (Cursor cursor = values.openCursor(null, null)) {
            var k = new DatabaseEntry(RecordLayout.key(key, placemark.length == Id.BYTES ? placemark : new byte[Id.BYTES]));
            var d = new DatabaseEntry();
            byte[] prefix = key.bytes();
            OperationStatus status = cursor.getSearchKeyRange(k, d, LockMode.DEFAULT);
            while (status == OperationStatus.SUCCESS && RecordLayout.hasPrefix(k.getData(), prefix)) {
                StoredValue v = RecordLayout.value(d.getData());
                boolean afterPlacemark = placemark.length == 0
                        || !Arrays.equals(k.getData(), RecordLayout.key(key, placemark));
                if (v.isLiveAt(now) && afterPlacemark) {
                    if (found.size() == max) {
                        more = true;
                        break;
                    }
                    found.add(new Found(v.value(), Duration.ofMillis(v.expiresAt() - now)));
                    last = Arrays.copyOfRange(k.getData(), Id.BYTES, RecordLayout.KEY_BYTES);
                }
                status = cursor.getNext(k, d, LockMode.DEFAULT);
            }
        }
        return new Page(List.copyOf(found), more ? last : new byte[0]);
    }

    /** The key's unexpired records, tombstones included, in value-hash order. */
    private List<StoredValue> read(Transaction txn, Id key) {
        long now = clock.millis();
        List<StoredValue> out = new ArrayList<>();
        try (Cursor cursor = values.openCursor(txn, null)) {
            var k = new DatabaseEntry(RecordLayout.key(key, new byte[Id.BYTES]));
            var d = new DatabaseEntry();
            byte[] prefix = key.bytes();
            OperationStatus status = cursor.getSearchKeyRange(k, d, txn == null ? LockMode.DEFAULT : LockMode.RMW);
            while (status == OperationStatus.SUCCESS && RecordLayout.hasPrefix(k.getData(), prefix)) {
                StoredValue v = RecordLayout.value(d.getData());
                if (v.expiresAt() > now) {
                    out.add(v);
                }
                status = cursor.getNext(k, d, txn == null ? LockMode.DEFAULT : LockMode.RMW);
            }
        }
        return out;
    }

    private void replace(Transaction txn, Id key, List<StoredValue> current, List<StoredValue> next) {
        Set<String> kept = new HashSet<>();
        for (StoredValue v : next) {
            kept.add(HexFormat.of().formatHex(v.valueHash()));
        }
        for (StoredValue v : current) {
            if (!kept.contains(HexFormat.of().formatHex(v.valueHash()))) {
                values.delete(txn, new DatabaseEntry(RecordLayout.key(key, v.valueHash())));
            }
        }
        write(txn, key, next);
    }

    private void write(Transaction txn, Id key, List<StoredValue> records) {
        for (StoredValue v : records) {
            values.put(txn, new DatabaseEntry(RecordLayout.key(key, v.valueHash())), new DatabaseEntry(RecordLayout.data(v)));
        }
    }
}
