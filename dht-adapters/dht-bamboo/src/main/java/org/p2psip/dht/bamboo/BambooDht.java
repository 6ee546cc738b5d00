package org.p2psip.dht.bamboo;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.bamboo.routing.Id;
import org.p2psip.dht.bamboo.storage.ValueStore.Found;

/**
 * The DHT service over a Bamboo node. An AOR's record lives under the key SHA-1(AOR) as one
 * value, the {@link BindingCodec} bytes of the stored set, expiring at its retention time. A put
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

    @Override
    public CompletionStage<BindingSet> get(String aor) {
        return node.get(key(aor), MAX_VALUES, new byte[0]).thenApply(page -> {
            long now = clock.millis();
            BindingSet newest = BindingSet.absent(aor);
            for (Found found : page.values()) {
                BindingSet set = decode(found.value());
                if (set != null && set.aor().equals(aor) && set.version() > newest.version() && set.retainUntil() > now) {
                    newest = set;
                }
            }
            return newest.liveAt(now);
        });
    }

    @Override
    public CompletionStage<Boolean> put(BindingSet next) {
        Id key = key(next.aor());
        return node.swap(key, next.version(), BindingCodec.encode(next.stored()), next.retainUntil(), secret(key));
    }

    @Override
    public CompletionStage<Boolean> remove(String aor, long version) {
        Id key = key(aor);
        return node.forget(key, version, secret(key));
    }

    @Override
    public Map<String, Long> metrics() {
        return node.metrics();
    }

    public BambooNode node() {
        return node;
    }

    @Override
    public void close() {
        node.close();
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

    private static BindingSet decode(byte[] value) {
        try {
            return BindingCodec.decode(value);
        } catch (MalformedBindingException e) {
            return null; // not a record of this format: another client's value under the same key
        }
    }
}
