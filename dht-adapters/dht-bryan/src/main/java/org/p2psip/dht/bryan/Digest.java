package org.p2psip.dht.bryan;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import org.p2psip.dht.chord.Id;
import org.p2psip.dht.chord.Record;

/**
 * A summary of the records whose keys lie in a range {@code (from, to]}, in {@value #BUCKETS}
 * buckets by the key's last byte: the body of {@code DHT-Op: digest} (Content-Type
 * {@value #TYPE}), with which a responsible peer asks a replica which buckets of its range the
 * replica holds differently; the replica answers their numbers ({@value #BUCKETS_TYPE}).
 * <pre>
 * digest  = from:20 to:20 sum:u64*256     ; bucket b's sum at index b
 * buckets = count:u16 bucket:u8*count
 * </pre>
 * A bucket's sum is the sum (mod 2^64) of a 64-bit mix of each record's key, stamp, retention and kind:
 * the same records give the same sum in any order. Immutable.
 */
record Digest(Id from, Id to, long[] sums) {

    static final String TYPE = "application/vnd.p2psip.digest";
    static final String BUCKETS_TYPE = "application/vnd.p2psip.buckets";
    static final int BUCKETS = 256;
    private static final int BYTES = 2 * Id.BYTES + 8 * BUCKETS;

    Digest {
        if (sums.length != BUCKETS) {
            throw new IllegalArgumentException("a digest has " + BUCKETS + " sums, not " + sums.length);
        }
    }

    /** The digest of those of {@code records} whose keys lie in (from, to]. */
    static Digest of(Id from, Id to, Iterable<Record> records) {
        long[] sums = new long[BUCKETS];
        for (Record r : records) {
            if (r.key().inHalfOpen(from, to)) {
                sums[bucket(r.key())] += mix(r);
            }
        }
        return new Digest(from, to, sums);
    }

    /** The bucket of a key: its last byte (SHA-1's bytes are all equally spread). */
    static int bucket(Id key) {
        return (int) (key.value().longValue() & 0xFF);
    }

    /** The buckets whose sums differ between this digest and {@code other}. */
    BitSet differing(Digest other) {
        var different = new BitSet(BUCKETS);
        for (int b = 0; b < BUCKETS; b++) {
            if (sums[b] != other.sums[b]) {
                different.set(b);
            }
        }
        return different;
    }

    byte[] encode() {
        var out = ByteBuffer.allocate(BYTES);
        out.put(from.bytes()).put(to.bytes());
        Arrays.stream(sums).forEach(out::putLong);
        return out.array();
    }

    /** @throws IllegalArgumentException if the body is not a digest's */
    static Digest decode(byte[] body) {
        if (body.length != BYTES) {
            throw new IllegalArgumentException("a digest body is " + BYTES + " bytes, not " + body.length);
        }
        var in = ByteBuffer.wrap(body);
        byte[] id = new byte[Id.BYTES];
        in.get(id);
        Id from = Id.of(id);
        in.get(id);
        Id to = Id.of(id);
        long[] sums = new long[BUCKETS];
        for (int b = 0; b < BUCKETS; b++) {
            sums[b] = in.getLong();
        }
        return new Digest(from, to, sums);
    }

    static byte[] encodeBuckets(BitSet buckets) {
        var out = ByteBuffer.allocate(2 + buckets.cardinality());
        out.putShort((short) buckets.cardinality());
        buckets.stream().forEach(b -> out.put((byte) b));
        return out.array();
    }

    /** @throws IllegalArgumentException if the body is not a list of buckets */
    static BitSet decodeBuckets(byte[] body) {
        if (body.length < 2 || body.length != 2 + (((body[0] & 0xFF) << 8) | (body[1] & 0xFF))) {
            throw new IllegalArgumentException("a buckets body of " + body.length + " bytes does not match its count");
        }
        var buckets = new BitSet(BUCKETS);
        for (int i = 2; i < body.length; i++) {
            buckets.set(body[i] & 0xFF);
        }
        return buckets;
    }

    /** SplitMix64's finaliser over the key's low 64 bits, the stamp, the retention and the kind (set or marker). */
    private static long mix(Record r) {
        long until = r.set() == null ? ~r.removedUntil() : r.set().retainUntil();
        long z = r.key().value().longValue() ^ (r.stamp() * 0x9E3779B97F4A7C15L) ^ (until * 0xC2B2AE3D27D4EB4FL);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Digest d && from.equals(d.from) && to.equals(d.to) && Arrays.equals(sums, d.sums);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * from.hashCode() + to.hashCode()) + Arrays.hashCode(sums);
    }

    @Override
    public String toString() {
        return "Digest(" + from + ", " + to + "]";
    }
}
