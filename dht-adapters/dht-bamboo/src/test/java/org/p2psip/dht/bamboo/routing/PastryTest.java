package org.p2psip.dht.bamboo.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.Id;

class PastryTest {

    private static Id hex(String digits) {
        return Id.around(new BigInteger(digits + "0".repeat(40 - digits.length()), 16));
    }

    @Test
    void digitsAreReadFromTheMostSignificantEnd() {
        Id id = hex("a3f");
        assertEquals(0xa, Pastry.digit(id, 0, 4));
        assertEquals(0x3, Pastry.digit(id, 1, 4));
        assertEquals(0xf, Pastry.digit(id, 2, 4));
        assertEquals(0b10, Pastry.digit(id, 0, 2));
        assertEquals(2, Pastry.sharedDigits(hex("a3f"), hex("a30"), 4));
        assertEquals(40, Pastry.sharedDigits(id, id, 4));
    }

    @Test
    void distanceGoesTheShortWayRoundTheCircle() {
        Id nearTop = Id.around(BigInteger.valueOf(-2));
        Id nearZero = Id.around(BigInteger.ONE);
        assertEquals(BigInteger.valueOf(3), Pastry.distance(nearTop, nearZero));
        assertEquals(BigInteger.valueOf(3), Pastry.distance(nearZero, nearTop));
        assertTrue(Pastry.closer(nearZero, nearTop, hex("8")), "the top of the circle is next to zero");
    }

    @Test
    void withDigitKeepsThePrefixBeforeTheDigit() {
        var random = new Random(1);
        for (int i = 0; i < 100; i++) {
            Id id = Id.random(random);
            Id changed = Pastry.withDigit(id, 3, (Pastry.digit(id, 3, 4) + 1) % 16, 4, random);
            assertEquals(3, Pastry.sharedDigits(id, changed, 4));
        }
    }
}
