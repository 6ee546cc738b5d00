package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AnswerSlabTest {

    private final AnswerSlab slab = new AnswerSlab();

    private static byte[] answer(int i) {
        return ("SIP/2.0 200 OK\r\nCall-ID: " + i + "\r\n\r\n" + "x".repeat(i % 700)).getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void everyAnswerOfManyArraysIsFoundWithItsOwnBytesAddressAndPort() throws Exception {
        InetAddress v4 = InetAddress.getByName("192.0.2.7");
        InetAddress v6 = InetAddress.getByName("2001:db8::7");
        int answers = 3 * AnswerSlab.CHUNK / 300;   // several arrays, and the index grown many times
        for (int i = 0; i < answers; i++) {
            slab.put("z9hg4bk-" + i, new FinalAnswers.Answer("REGISTER", answer(i), i % 2 == 0 ? v4 : v6, 5000 + i % 60000));
        }
        assertEquals(answers, slab.size());
        for (int i = 0; i < answers; i++) {
            FinalAnswers.Answer found = slab.find("z9hg4bk-" + i);
            assertArrayEquals(answer(i), found.message(), "answer " + i);
            assertEquals(i % 2 == 0 ? v4 : v6, found.address());
            assertEquals(5000 + i % 60000, found.port());
            assertEquals("REGISTER", found.method());
        }
        assertNull(slab.find("z9hg4bk-" + answers), "a branch never answered");
        assertNull(slab.find("z9hg4bk-1x"), "a branch that only begins like one answered");
    }

    @Test
    void aMethodOutsideTheCommonOnesAndALaterAnswerToTheSameBranchAreKeptAsSent() {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        slab.put("z9hg4bk-a", new FinalAnswers.Answer("OPTIONS", answer(1), loopback, 1));
        slab.put("z9hg4bk-b", new FinalAnswers.Answer("X-CUSTOM", answer(2), loopback, 2));
        slab.put("z9hg4bk-a", new FinalAnswers.Answer("OPTIONS", answer(3), loopback, 3));

        assertEquals("X-CUSTOM", slab.find("z9hg4bk-b").method());
        assertArrayEquals(answer(3), slab.find("z9hg4bk-a").message(), "the later answer is the one to resend");
        assertEquals(2, slab.size());
    }

    @Test
    void clearingForgetsEverythingAndTheSlabFillsAgain() {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int i = 0; i < 5_000; i++) {
            slab.put("b" + i, new FinalAnswers.Answer("BYE", answer(i), loopback, 9));
        }
        slab.clear();
        assertEquals(0, slab.size());
        assertNull(slab.find("b1"));
        slab.put("b1", new FinalAnswers.Answer("BYE", answer(7), loopback, 9));
        assertArrayEquals(answer(7), slab.find("b1").message());
    }
}
