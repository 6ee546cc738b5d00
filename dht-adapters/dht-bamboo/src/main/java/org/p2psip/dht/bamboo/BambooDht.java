package org.p2psip.dht.bamboo;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.store.Record;
import org.p2psip.dht.ring.store.RecordCodec;
import org.p2psip.dht.bamboo.routing.NodeHandle;
import org.p2psip.dht.bamboo.storage.JeStorage;
import org.p2psip.dht.bamboo.storage.SharedEnvironment;
import org.p2psip.dht.bamboo.wire.TransportNetwork;
import org.p2psip.overlay.OverlaySettings;
import org.p2psip.overlay.TcpTransport;
import org.p2psip.overlay.OverlayTransport;
import org.p2psip.dht.bamboo.storage.ValueStore.Found;

/**
 * The DHT service over a Bamboo node. An AOR's record lives under the key SHA-1(AOR) as one
 * value, the ring's {@link Record} in {@link RecordCodec}'s encoding (the stored set and when the
 * root wrote each contact), expiring at the set's retention time. A put
 * or remove is a compare-and-set that the key's root runs in one storage transaction (see
 * {@link VersionedRecord}) and replicates before answering. Each write carries the key's secret,
 * HMAC-SHA1(overlay secret, key): only nodes holding the overlay secret can replace or remove a
 * record. Thread-safe; nothing waits.
 */
public final class BambooDht implements Dht {

    /** Values a get asks for: a key holds one record; more would be a foreign value. */
    private static final int MAX_VALUES = 8;

    private final BambooNode node;
    private final Clock clock;
    private final SecretKeySpec overlaySecret;
    private final AutoCloseable resources;
    private volatile CompletionStage<Void> joined = CompletableFuture.completedFuture(null);

    /**
     * @param resources closed after the node (the transport it runs on), or null
     */
    public BambooDht(BambooNode node, String overlaySecret, Clock clock, AutoCloseable resources) {
        this.node = node;
        this.clock = clock;
        byte[] secret = overlaySecret.getBytes(StandardCharsets.UTF_8);
        this.overlaySecret = new SecretKeySpec(secret.length == 0 ? new byte[1] : secret, "HmacSHA1");
        this.resources = resources;
    }

    /**
     * Starts this JVM's Bamboo node as the configuration says, for the servlet to call once at
     * start: listens for overlay traffic on TCP at {@code p2psip.overlay.address}, opens (or
     * recovers) the JE environment in {@code p2psip.data.dir}, and joins through
     * {@code p2psip.overlay.bootstrap} (then the {@code p2psip.overlay.members}), retrying in the
     * background until one answers; until then the node serves alone. The node's id is SHA-1 of
     * its overlay address, so a node restarted at the same address and folder takes back its keys.
     * Blocks only while binding the socket and opening JE.
     *
     * @throws IllegalArgumentException without {@code p2psip.overlay.secret}, or with a
     *         {@code p2psip.bamboo.*} option this backend does not know (most often a misspelling)
     * @throws org.p2psip.dht.DhtException STORAGE if the JE environment cannot be opened
     */
    public static BambooDht start(Config config, Clock clock, OwnerRules ownerRules) {
        checkOptions(config); // before binding: a misspelt option should not hold a port
        OverlayTransport transport = TcpTransport.bind(config.get(NodeOptions.OVERLAY_ADDRESS), OverlaySettings.from(config));
        return start(transport, config, clock, ownerRules);
    }

    /** {@link #start(Config, Clock, OwnerRules)} for a node that applies no changes ({@link #update} refused). */
    public static BambooDht start(Config config, Clock clock) {
        return start(config, clock, OwnerRules.NONE);
    }

    /**
     * As {@link #start(Config, Clock)}, on {@code transport} (its address is the node's; its
     * settings already hold the secret) instead of a TCP socket of its own. The node owns the
     * transport from now on: it is closed with the node, or at once if the node cannot start.
     */
    public static BambooDht start(OverlayTransport transport, Config config, Clock clock) {
        return start(transport, config, clock, OwnerRules.NONE);
    }

    /** As {@link #start(OverlayTransport, Config, Clock)}, applying changes with {@code ownerRules} ({@link #update}). */
    public static BambooDht start(OverlayTransport transport, Config config, Clock clock, OwnerRules ownerRules) {
        var network = new TransportNetwork(transport);
        var self = new NodeHandle(Id.hash(transport.address()), transport.address());
        BambooNode node;
        try {
            checkOptions(config);
            node = BambooNode.start(self, config, network, Path.of(config.get(NodeOptions.DATA_DIR)), clock, ownerRules);
        } catch (RuntimeException e) {
            transport.close();
            throw e;
        }
        return joining(node, network, config, clock);
    }

    /**
     * Starts a node for a simulation of many nodes in one JVM on one thread: as {@link
     * #start(Transport, Config, Clock)}, but all its work runs on {@code transport.executor()}
     * (the simulation's loop, shared by every node and never stopped by one; no thread of its
     * own) and it reads time from {@code transport.nanoTime()} and {@code clock}, so give it the
     * loop's virtual clock. Its records are in databases named after its address in {@code
     * storage}, an environment the simulation opened once for all its nodes; storage work runs on
     * the loop's thread and completes at once. Joining, like all the node's work, happens as the
     * caller drives the loop. {@code p2psip.data.dir} is not read.
     *
     * @throws IllegalArgumentException with a {@code p2psip.bamboo.*} option this backend does not know
     * @throws IllegalStateException if a node at this address has its storage open in {@code storage}
     */
    public static BambooDht start(OverlayTransport transport, Config config, Clock clock, SharedEnvironment storage) {
        var network = new TransportNetwork(transport);
        var self = new NodeHandle(Id.hash(transport.address()), transport.address());
        BambooNode node;
        try {
            checkOptions(config);
            node = BambooNode.start(self, config, network, transport.executor(),
                    JeStorage.open(storage, transport.address(), clock), clock);
        } catch (RuntimeException e) {
            transport.close();
            throw e;
        }
        return joining(node, network, config, clock);
    }

    /** The service over a started node, which joins in the background through the configured bootstrap and members. */
    private static BambooDht joining(BambooNode node, TransportNetwork network, Config config, Clock clock) {
        List<String> bootstraps = new ArrayList<>();
        bootstraps.add(config.get(NodeOptions.OVERLAY_BOOTSTRAP));
        bootstraps.addAll(NodeOptions.list(config.get(NodeOptions.OVERLAY_MEMBERS)));
        var dht = new BambooDht(node, config.get(NodeOptions.OVERLAY_SECRET), clock, network);
        CompletionStage<Void> joining = node.joinInBackground(bootstraps);
        // Without a bootstrap this node founds the overlay: it serves at once (the others join
        // it), while still trying the members, so that a founder restarted after a crash rejoins
        // the overlay that carried on without it.
        boolean founder = config.get(NodeOptions.OVERLAY_BOOTSTRAP).isBlank();
        dht.joined = founder ? CompletableFuture.completedFuture(null) : joining;
        return dht;
    }

    private static void checkOptions(Config config) {
        Set<String> unknown = config.unknown("p2psip.bamboo.", BambooOptions.ALL);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown Bamboo options " + unknown + "; known: "
                    + BambooOptions.ALL.stream().map(o -> o.name()).toList());
        }
    }

    /** Completes once the node has joined the overlay (at once when it had no one to join). */
    public CompletionStage<Void> joined() {
        return joined;
    }

    @Override
    public CompletionStage<BindingSet> get(String aor) {
        return node.get(key(aor), MAX_VALUES, new byte[0]).thenApply(page -> {
            long now = clock.millis();
            BindingSet newest = BindingSet.absent(aor);
            for (Found found : page.values()) {
                BindingSet set = readable(aor, found.value(), now);
                if (set != null && set.version() > newest.version()) {
                    newest = set;
                }
            }
            return newest.liveAt(now);
        });
    }

    @Override
    public CompletionStage<Boolean> put(BindingSet next) {
        return putOrCurrent(next).thenApply(Optional::isEmpty);
    }

    /** One routed Swap: its refusal carries the live value that refused it. */
    @Override
    public CompletionStage<Optional<BindingSet>> putOrCurrent(BindingSet next) {
        Id key = key(next.aor());
        long now = clock.millis();
        return node.swap(key, next.version(), BindingCodec.encode(next.stored()), secret(key))
                .thenApply(refusedBy -> refusedBy.map(value -> {
                    BindingSet set = value.length == 0 ? null : readable(next.aor(), value, now);
                    return set == null ? BindingSet.absent(next.aor()) : set.liveAt(now);
                }));
    }

    @Override
    public boolean appliesChanges() {
        return node.appliesChanges();
    }

    /** One routed Apply: the root answers the record it wrote, or the live one it left, and the rules' answer. */
    @Override
    public CompletionStage<Updated> update(String aor, byte[] change) {
        Id key = key(aor);
        long now = clock.millis();
        return node.apply(key, aor, change, secret(key)).thenApply(applied -> {
            BindingSet set = applied.current().length == 0 ? null : readable(aor, applied.current(), now);
            return new Updated(set == null ? BindingSet.absent(aor) : set.liveAt(now), applied.written(), applied.answer());
        });
    }

    @Override
    public CompletionStage<Boolean> remove(String aor, long version) {
        Id key = key(aor);
        return node.forget(key, version, secret(key));
    }

    @Override
    public Set<String> levels() {
        return Set.of("bamboo.storage.queued");
    }

    @Override
    public Map<String, Long> metrics() {
        if (resources instanceof TransportNetwork network) {
            var all = new HashMap<>(node.metrics());
            all.putAll(network.metrics());
            return all;
        }
        return node.metrics();
    }

    public BambooNode node() {
        return node;
    }

    /**
     * Leaves the overlay (the node hands its keys over, see {@link BambooNode#close}), then
     * closes the transport. On its own loop this returns once done; on a simulation's shared
     * loop it returns at once and the node leaves, then closes the transport, as the loop runs.
     */
    @Override
    public void close() {
        node.close();
        CompletableFuture<Void> stopped = node.stopped().toCompletableFuture();
        if (stopped.isDone()) {
            closeResources();
        } else {
            stopped.thenRun(this::closeResources);
        }
    }

    /**
     * Stops the node as a crash does: no hand-over and no word to its peers; its timers stop and
     * its storage closes (the records stay in a shared environment until removed). The transport
     * is left as it is and answers every request with a refusal, which peers take as a dead node
     * at once; a simulation silences the address in its network first for a host that vanished
     * (peers then see timeouts), and closes the transport when it is done with it.
     */
    public void crash() {
        node.abort();
    }

    private void closeResources() {
        if (resources != null) {
            try {
                resources.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing the Bamboo node's transport failed", e);
            }
        }
    }

    static Id key(String aor) {
        return Id.hash(aor);
    }

    private byte[] secret(Id key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(overlaySecret);
            return mac.doFinal(key.bytes());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java platform has HmacSHA1", e);
        }
    }

    /** The set a stored value holds for {@code aor} at {@code now}; null if none (another format, AOR, a marker or past retention). */
    private static BindingSet readable(String aor, byte[] value, long now) {
        Record record = decode(value);
        return record != null && !record.isRemoved() && record.aor().equals(aor) && record.set().retainUntil() > now
                ? record.set() : null;
    }

    private static Record decode(byte[] value) {
        try {
            return RecordCodec.decode(value);
        } catch (MalformedBindingException e) {
            return null; // not a record of this format: another client's value under the same key
        }
    }
}
