package org.p2psip.dht.ring;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.random.RandomGenerator;

/**
 * A point on the identifier circle of the ring backends (Chord, Bryan) and of Bamboo: a 160-bit
 * number, as SHA-1 makes them. Node ids hash the node's overlay address, key ids hash the AOR.
 * Intervals are read clockwise. Immutable.
 */
public record Id(BigInteger value) implements Comparable<Id> {

    public static final int BITS = 160;
    public static final int BYTES = BITS / 8;
    static final BigInteger RING = BigInteger.ONE.shiftLeft(BITS);
    private static final HexFormat HEX = HexFormat.of();

    public Id {
        if (value.signum() < 0 || value.compareTo(RING) >= 0) {
            throw new IllegalArgumentException("identifier outside [0, 2^160): " + value);
        }
    }

    /** SHA-1 of the text's UTF-8 bytes. */
    public static Id hash(String text) {
        return new Id(new BigInteger(1, sha1(text.getBytes(StandardCharsets.UTF_8))));
    }

    /** SHA-1 of {@code bytes}: the hash that places ids on the circle, and Bamboo's hash of values and secrets. */
    public static byte[] sha1(byte[] bytes) {
        return SHA1.get().digest(bytes);
    }

    /** The point {@code value} lands on: the value modulo 2^160, a negative one counted back from the top. */
    public static Id around(BigInteger value) {
        return new Id(value.mod(RING));
    }

    /** A point drawn from {@code random}: a node's id where it is not its address's hash. */
    public static Id random(RandomGenerator random) {
        byte[] bytes = new byte[BYTES];
        random.nextBytes(bytes);
        return of(bytes);
    }

    /**
     * One digest per thread: {@code MessageDigest.getInstance} looks the provider up on every call,
     * which showed among a loaded node's event-loop samples (every record copy received is hashed).
     * {@code digest} resets it for the next use.
     */
    private static final ThreadLocal<MessageDigest> SHA1 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is part of every Java runtime", e);
        }
    });

    /** Reads 20 big-endian bytes. */
    public static Id of(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("an identifier is " + BYTES + " bytes, got " + bytes.length);
        }
        return new Id(new BigInteger(1, bytes));
    }

    /** Parses hex digits, usually the 40 that {@link #toString} writes. */
    public static Id parse(String hex) {
        if (hex.length() == 2 * BYTES) {
            return of(HEX.parseHex(hex)); // the common case, without BigInteger's radix conversion
        }
        return new Id(new BigInteger(hex, 16));
    }

    public byte[] bytes() {
        byte[] raw = value.toByteArray();
        byte[] out = new byte[BYTES];
        int copy = Math.min(raw.length, BYTES);
        System.arraycopy(raw, raw.length - copy, out, BYTES - copy, copy);
        return out;
    }

    /** This id plus 2^i, around the circle: the start of finger i. */
    public Id plusPowerOfTwo(int i) {
        return new Id(value.add(BigInteger.ONE.shiftLeft(i)).mod(RING));
    }

    /**
     * The share of the circle in (this, to], in millionths, rounded down; (a, a] is the whole
     * circle, 1,000,000. Fine enough that the shares of a node's many places add up, each
     * rounded down by at most a millionth.
     */
    public long ppmTo(Id to) {
        BigInteger distance = distanceTo(to);
        return distance.signum() == 0 ? PPM : distance.multiply(BigInteger.valueOf(PPM)).divide(RING).longValue();
    }

    /** The whole circle in millionths. */
    public static final long PPM = 1_000_000;

    /** Clockwise distance from this id to {@code to}. */
    public BigInteger distanceTo(Id to) {
        return to.value.subtract(value).mod(RING);
    }

    /** Whether this id lies in the open interval (from, to); (a, a) is the whole circle but a. */
    public boolean inOpen(Id from, Id to) {
        int fromTo = from.compareTo(to);
        if (fromTo < 0) {
            return compareTo(from) > 0 && compareTo(to) < 0;
        }
        if (fromTo > 0) {
            return compareTo(from) > 0 || compareTo(to) < 0;
        }
        return !equals(from);
    }

    /** Whether this id lies in (from, to]; (a, a] is the whole circle. */
    public boolean inHalfOpen(Id from, Id to) {
        return equals(to) || inOpen(from, to);
    }

    @Override
    public int compareTo(Id other) {
        return value.compareTo(other.value);
    }

    /**
     * 40 hex digits, zero-padded. From the bytes: {@code BigInteger.toString(16)} divides, and was
     * a twentieth of a loaded Bryan peer loop (String.format, before it, a fifth).
     */
    @Override
    public String toString() {
        return HEX.formatHex(bytes());
    }
}
