package org.p2psip.dht.bamboo.routing;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.random.RandomGenerator;

/**
 * A point of the 160-bit identifier circle that nodes and keys share (SHA-1 sized). Immutable.
 * Digits are read from the most significant end, {@code b} bits each, as Pastry's prefix routing
 * reads them.
 */
public final class Id implements Comparable<Id> {

    public static final int BITS = 160;
    public static final int BYTES = BITS / 8;
    static final BigInteger RING = BigInteger.ONE.shiftLeft(BITS);
    static final BigInteger HALF = BigInteger.ONE.shiftLeft(BITS - 1);

    private final BigInteger value;

    private Id(BigInteger value) {
        this.value = value;
    }

    public static Id of(BigInteger value) {
        return new Id(value.mod(RING));
    }

    /** The id written as 20 big-endian bytes. */
    public static Id of(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("an id is " + BYTES + " bytes, got " + bytes.length);
        }
        return new Id(new BigInteger(1, bytes));
    }

    /** The SHA-1 of {@code text}'s UTF-8 bytes: where a key or a node's address lands on the circle. */
    public static Id hash(String text) {
        return of(sha1(text.getBytes(StandardCharsets.UTF_8)));
    }

    public static Id random(RandomGenerator random) {
        byte[] bytes = new byte[BYTES];
        random.nextBytes(bytes);
        return of(bytes);
    }

    public static byte[] sha1(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-1", e);
        }
    }

    public byte[] bytes() {
        byte[] raw = value.toByteArray();
        byte[] out = new byte[BYTES];
        int from = Math.max(0, raw.length - BYTES);
        System.arraycopy(raw, from, out, BYTES - (raw.length - from), raw.length - from);
        return out;
    }

    public BigInteger value() {
        return value;
    }

    /** The {@code index}-th digit of {@code bits} bits, counted from the most significant end. */
    public int digit(int index, int bits) {
        int shift = BITS - (index + 1) * bits;
        return value.shiftRight(shift).intValue() & ((1 << bits) - 1);
    }

    /** How many leading digits of {@code bits} bits this id shares with {@code other}. */
    public int sharedDigits(Id other, int bits) {
        int differing = value.xor(other.value).bitLength();
        return (BITS - differing) / bits;
    }

    /** Distance going clockwise (increasing ids) from this id to {@code to}. */
    public BigInteger clockwiseTo(Id to) {
        return to.value.subtract(value).mod(RING);
    }

    /** Shortest distance around the circle, either way. */
    public BigInteger distance(Id other) {
        BigInteger cw = clockwiseTo(other);
        return cw.compareTo(HALF) > 0 ? RING.subtract(cw) : cw;
    }

    /**
     * Whether {@code a} is strictly closer to this id than {@code b}; equal distances are broken
     * by the smaller id, so every node picks the same root for a key.
     */
    public boolean closer(Id a, Id b) {
        int c = distance(a).compareTo(distance(b));
        return c < 0 || (c == 0 && a.compareTo(b) < 0);
    }

    /** This id with digit {@code index} replaced by {@code digit} and every later bit random. */
    public Id withDigit(int index, int digit, int bits, RandomGenerator random) {
        int keep = index * bits;
        BigInteger prefix = keep == 0 ? BigInteger.ZERO : value.shiftRight(BITS - keep).shiftLeft(BITS - keep);
        BigInteger d = BigInteger.valueOf(digit).shiftLeft(BITS - keep - bits);
        BigInteger rest = new BigInteger(BITS - keep - bits, new java.util.Random(random.nextLong()));
        return new Id(prefix.or(d).or(rest));
    }

    @Override
    public int compareTo(Id o) {
        return value.compareTo(o.value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Id other && value.equals(other.value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes());
    }

    /** The first {@code n} hex digits, for logs. */
    public String shortText(int n) {
        return toString().substring(0, n);
    }
}
