package org.p2psip.dht.bamboo.routing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IdTest {

    private static Id hex(String digits) {
        return Id.of(new BigInteger(digits + "0".repeat(40 - digits.length()), 16));
    }

    @Test
    void digitsAreReadFromTheMostSignificantEnd() {
        Id id = hex("a3f");
        assertEquals(0xa, id.digit(0, 4));
        assertEquals(0x3, id.digit(1, 4));
        assertEquals(0xf, id.digit(2, 4));
        assertEquals(0b10, id.digit(0, 2));
        assertEquals(2, hex("a3f").sharedDigits(hex("a30"), 4));
        assertEquals(40, id.sharedDigits(id, 4));
    }

    @Test
    void distanceGoesTheShortWayRoundTheCircle() {
        Id nearTop = Id.of(Id.RING.subtract(BigInteger.TWO));
        Id nearZero = Id.of(BigInteger.ONE);
        assertEquals(BigInteger.valueOf(3), nearTop.distance(nearZero));
        assertEquals(BigInteger.valueOf(3), nearZero.distance(nearTop));
        assertTrue(nearZero.closer(nearTop, hex("8")), "the top of the circle is next to zero");
    }

    @Test
    void anIdSurvivesItsBytesAndWithDigitKeepsThePrefix() {
        var random = new Random(1);
        for (int i = 0; i < 100; i++) {
            Id id = Id.random(random);
            assertEquals(id, Id.of(id.bytes()));
            Id changed = id.withDigit(3, (id.digit(3, 4) + 1) % 16, 4, random);
            assertEquals(3, id.sharedDigits(changed, 4));
        }
        assertArrayEquals(new byte[20], Id.of(BigInteger.ZERO).bytes());
    }
}
