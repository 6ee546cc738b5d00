package org.p2psip.dht.hazelcast;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;

/**
 * A remove of the Dht contract, run on the partition thread that owns the AOR: deletes the entry
 * if it holds a record within its retention whose version is {@code expected}. Deterministic, so
 * Hazelcast may run it again on the backups (see {@link CompareAndSet}). Used by one thread at a time.
 */
final class CompareAndRemove implements EntryProcessor<String, byte[], Boolean>, IdentifiedDataSerializable {

    private long expected;
    private long now;

    /** For deserialisation only. */
    CompareAndRemove() {
    }

    CompareAndRemove(long expected, long now) {
        this.expected = expected;
        this.now = now;
    }

    @Override
    public Boolean process(Map.Entry<String, byte[]> entry) {
        long current = StoredRecord.versionAt(entry.getValue(), now);
        if (current == 0 || current != expected) {
            return false;
        }
        entry.setValue(null);
        return true;
    }

    @Override
    public int getFactoryId() {
        return Processors.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return Processors.COMPARE_AND_REMOVE;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeLong(expected);
        out.writeLong(now);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        expected = in.readLong();
        now = in.readLong();
    }
}
