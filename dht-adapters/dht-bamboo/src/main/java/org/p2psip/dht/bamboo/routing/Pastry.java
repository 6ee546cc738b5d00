package org.p2psip.dht.bamboo.routing;

import java.math.BigInteger;
import java.util.random.RandomGenerator;
import org.p2psip.dht.ring.Id;

/**
 * Pastry's reading of the identifier circle ({@link Id}, shared with the ring backends): digits of
 * {@code bits} bits read from the most significant end, the prefix two ids share, and the
 * distance either way round, which decides a key's root. Stateless.
 */
public final class Pastry {

    private static final BigInteger RING = BigInteger.ONE.shiftLeft(Id.BITS);
    private static final BigInteger HALF = BigInteger.ONE.shiftLeft(Id.BITS - 1);

    private Pastry() {
    }

    /** The {@code index}-th digit of {@code bits} bits of {@code id}, counted from the most significant end. */
    public static int digit(Id id, int index, int bits) {
        int shift = Id.BITS - (index + 1) * bits;
        return id.value().shiftRight(shift).intValue() & ((1 << bits) - 1);
    }

    /** How many leading digits of {@code bits} bits {@code a} shares with {@code b}. */
    public static int sharedDigits(Id a, Id b, int bits) {
        int differing = a.value().xor(b.value()).bitLength();
        return (Id.BITS - differing) / bits;
    }

    /** Shortest distance around the circle between {@code a} and {@code b}, either way. */
    public static BigInteger distance(Id a, Id b) {
        BigInteger clockwise = a.distanceTo(b);
        return clockwise.compareTo(HALF) > 0 ? RING.subtract(clockwise) : clockwise;
    }

    /**
     * Whether {@code a} is strictly closer to {@code key} than {@code b}; equal distances are
     * broken by the smaller id, so every node picks the same root for a key.
     */
    public static boolean closer(Id key, Id a, Id b) {
        int c = distance(key, a).compareTo(distance(key, b));
        return c < 0 || (c == 0 && a.compareTo(b) < 0);
    }

    /** {@code id} with digit {@code index} replaced by {@code digit} and every later bit random. */
    public static Id withDigit(Id id, int index, int digit, int bits, RandomGenerator random) {
        int keep = index * bits;
        BigInteger value = id.value();
        BigInteger prefix = keep == 0 ? BigInteger.ZERO : value.shiftRight(Id.BITS - keep).shiftLeft(Id.BITS - keep);
        BigInteger d = BigInteger.valueOf(digit).shiftLeft(Id.BITS - keep - bits);
        BigInteger rest = new BigInteger(Id.BITS - keep - bits, new java.util.Random(random.nextLong()));
        return new Id(prefix.or(d).or(rest));
    }
}
