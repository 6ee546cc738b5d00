package org.p2psip.dht.hazelcast;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A put of the Dht contract, run by Hazelcast on the partition thread that owns the AOR: stores
 * {@code value} with a time-to-live if the stored version (at the writer's {@code now}) is still
 * {@code expected}, and answers null when it did, else the value that refused it (an empty array
 * for none), so that the writer can apply its change again at once. The check and the write are one step on that
 * thread, so concurrent writers through any members are serialised without locks.
 *
 * <p>Hazelcast runs the same processor on each backup after the owner changed the entry; it is
 * deterministic (the writer's clock reading travels with it), so a backup in step with its owner
 * takes the same decision. Sent as IdentifiedDataSerializable: a few numbers and the codec's
 * bytes, no Java serialisation, no class looked up by name. Immutable once built; the instance
 * Hazelcast deserialises is used by one thread.
 */
final class CompareAndSet implements EntryProcessor<String, byte[], byte[]>, IdentifiedDataSerializable {

    private long expected;
    private byte[] value;
    private long now;
    private long ttlMillis;

    /** For deserialisation only. */
    CompareAndSet() {
    }

    CompareAndSet(long expected, byte[] value, long now, long ttlMillis) {
        if (ttlMillis <= 0) {
            throw new IllegalArgumentException("a time-to-live of " + ttlMillis + " ms would mean 'for ever' to Hazelcast");
        }
        this.expected = expected;
        this.value = value;
        this.now = now;
        this.ttlMillis = ttlMillis;
    }

    @Override
    public byte[] process(Map.Entry<String, byte[]> entry) {
        byte[] held = entry.getValue();
        if (StoredRecord.versionAt(held, now) != expected) {
            return held == null ? new byte[0] : held;
        }
        ((ExtendedMapEntry<String, byte[]>) entry).setValue(value, ttlMillis, TimeUnit.MILLISECONDS);
        return null;
    }

    @Override
    public int getFactoryId() {
        return Processors.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return Processors.COMPARE_AND_SET;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeLong(expected);
        out.writeByteArray(value);
        out.writeLong(now);
        out.writeLong(ttlMillis);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        expected = in.readLong();
        value = in.readByteArray();
        now = in.readLong();
        ttlMillis = in.readLong();
    }
}
