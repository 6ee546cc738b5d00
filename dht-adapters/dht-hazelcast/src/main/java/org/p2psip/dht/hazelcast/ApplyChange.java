package org.p2psip.dht.hazelcast;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;

/**
 * {@link org.p2psip.dht.Dht#update} as Hazelcast runs it, on the partition thread that owns the
 * AOR: the member's {@link OwnerRules} (which {@link Processors} hands to every instance it makes)
 * applied to the stored record, and the result stored with the record's retention as its
 * time-to-live, in one step, as {@link CompareAndSet} is. Answers a flag byte (1 written, 0 not),
 * the rules' answer for the writer (a length:u16 and its bytes), then the record's bytes as then
 * stored (none for no record): {@link #read} turns them into the {@link Updated} again. The backups take the
 * written bytes as they are ({@link #getBackupProcessor}), not the change: the rules run once.
 * Used by one thread at a time.
 */
final class ApplyChange implements EntryProcessor<String, byte[], byte[]>, IdentifiedDataSerializable {

    private final OwnerRules ownerRules;
    private String aor;
    private byte[] change;
    private long now;
    private byte[] written;
    private long ttlMillis;

    /** For deserialisation, with the member's rules. */
    ApplyChange(OwnerRules ownerRules) {
        this.ownerRules = ownerRules;
    }

    /**
     * The writer's instance, with the writer's member's rules: Hazelcast runs it as it is when that
     * member owns the partition; otherwise the owner deserialises one with its own.
     */
    ApplyChange(OwnerRules ownerRules, String aor, byte[] change, long now) {
        this.ownerRules = ownerRules;
        this.aor = aor;
        this.change = change;
        this.now = now;
    }

    @Override
    public byte[] process(Map.Entry<String, byte[]> entry) {
        byte[] held = entry.getValue();
        BindingSet current = StoredRecord.readAt(aor, held, now);
        Updated decided = ownerRules.next(current, change, now);
        if (!decided.written()) {
            return answer(decided, current.exists() ? BindingCodec.encode(current) : new byte[0]);
        }
        BindingSet stored = decided.record().stored();
        written = BindingCodec.encode(stored);
        ttlMillis = Math.max(1, stored.retainUntil() - now); // Hazelcast reads 0 as "for ever"
        ((ExtendedMapEntry<String, byte[]>) entry).setValue(written, ttlMillis, TimeUnit.MILLISECONDS);
        return answer(decided, written);
    }

    @Override
    public EntryProcessor<String, byte[], byte[]> getBackupProcessor() {
        return written == null ? null : new SetStored(written, ttlMillis);
    }

    private static byte[] answer(Updated decided, byte[] record) {
        byte[] said = decided.answer();
        if (said.length > 0xFFFF) {
            throw new IllegalStateException("the rules answered " + said.length + " bytes, more than 65535");
        }
        var out = java.nio.ByteBuffer.allocate(3 + said.length + record.length);
        out.put((byte) (decided.written() ? 1 : 0)).putShort((short) said.length).put(said).put(record);
        return out.array();
    }

    /** The {@link Updated} an answer of {@link #process} says, its record read at {@code now}. */
    static Updated read(String aor, byte[] answer, long now) {
        var in = java.nio.ByteBuffer.wrap(answer);
        boolean written = in.get() == 1;
        byte[] said = new byte[Short.toUnsignedInt(in.getShort())];
        in.get(said);
        byte[] record = new byte[in.remaining()];
        in.get(record);
        return new Updated(StoredRecord.readAt(aor, record.length == 0 ? null : record, now), written, said);
    }

    @Override
    public int getFactoryId() {
        return Processors.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return Processors.APPLY_CHANGE;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeString(aor);
        out.writeByteArray(change);
        out.writeLong(now);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        aor = in.readString();
        change = in.readByteArray();
        now = in.readLong();
    }

    /** What a backup does after its owner applied a change: store the same bytes, with the same time-to-live. */
    static final class SetStored implements EntryProcessor<String, byte[], byte[]>, IdentifiedDataSerializable {
        private byte[] value;
        private long ttlMillis;

        SetStored() {
        }

        SetStored(byte[] value, long ttlMillis) {
            this.value = value;
            this.ttlMillis = ttlMillis;
        }

        @Override
        public byte[] process(Map.Entry<String, byte[]> entry) {
            ((ExtendedMapEntry<String, byte[]>) entry).setValue(value, ttlMillis, TimeUnit.MILLISECONDS);
            return null;
        }

        @Override
        public int getFactoryId() {
            return Processors.FACTORY_ID;
        }

        @Override
        public int getClassId() {
            return Processors.SET_STORED;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            out.writeByteArray(value);
            out.writeLong(ttlMillis);
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            value = in.readByteArray();
            ttlMillis = in.readLong();
        }
    }
}
