package org.p2psip.dht.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class IdTest {

    private static Id id(long value) {
        return new Id(BigInteger.valueOf(value));
    }

    @Test
    void anOpenIntervalThatWrapsAroundZeroHoldsWhatLiesOnEitherSide() {
        Id from = new Id(BigInteger.ONE.shiftLeft(Id.BITS).subtract(BigInteger.TEN));
        assertTrue(id(3).inOpen(from, id(5)));
        assertTrue(new Id(from.value().add(BigInteger.ONE)).inOpen(from, id(5)));
        assertFalse(id(5).inOpen(from, id(5)));
        assertFalse(from.inOpen(from, id(5)));
        assertFalse(id(7).inOpen(from, id(5)));
    }

    @Test
    void anIntervalFromAPointToItselfIsTheWholeCircle() {
        assertTrue(id(9).inOpen(id(4), id(4)));
        assertFalse(id(4).inOpen(id(4), id(4)));
        assertTrue(id(4).inHalfOpen(id(4), id(4)));
        assertEquals(Id.PPM, id(4).ppmTo(id(4)));
    }

    @Test
    void theHalfOpenIntervalHoldsItsEndButNotItsStart() {
        assertTrue(id(5).inHalfOpen(id(1), id(5)));
        assertFalse(id(1).inHalfOpen(id(1), id(5)));
    }

    @Test
    void bytesHexAndHashRoundTripAndAFingerStartWrapsAround() {
        Id hashed = Id.hash("sip:alice@p2psip.test");
        assertEquals(hashed, Id.of(hashed.bytes()));
        assertEquals(hashed, Id.parse(hashed.toString()));
        assertEquals(40, hashed.toString().length());
        Id last = new Id(BigInteger.ONE.shiftLeft(Id.BITS).subtract(BigInteger.ONE));
        assertEquals(id(0), last.plusPowerOfTwo(0));
        assertThrows(IllegalArgumentException.class, () -> new Id(BigInteger.ONE.shiftLeft(Id.BITS)));
    }

    @Test
    void aValueOffTheCircleLandsOnItModuloTwoToThe160AndARandomIdSurvivesItsBytes() {
        BigInteger ring = BigInteger.ONE.shiftLeft(Id.BITS);
        assertEquals(id(3), Id.around(ring.add(BigInteger.valueOf(3))));
        assertEquals(new Id(ring.subtract(BigInteger.TWO)), Id.around(BigInteger.valueOf(-2)));
        var random = new java.util.Random(1);
        for (int i = 0; i < 100; i++) {
            Id drawn = Id.random(random);
            assertEquals(drawn, Id.of(drawn.bytes()));
        }
        assertEquals(Id.hash("alice"), Id.of(Id.sha1("alice".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    }
}
