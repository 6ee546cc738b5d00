package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;

/**
 * Two nodes that lost each other (each then serves alone, as the paper's Chord does) form one
 * ring again once they hear each other, and every write taken on either side is found through
 * either node afterwards; and the changes each side made to the same AORs meanwhile are merged
 * contact by contact, none lost.
 */
class PartitionTest {

    private static final int AORS = 200;
    private final Clock clock = Clock.systemUTC();
    private Ring ring;

    @AfterEach
    void close() {
        ring.close();
    }

    @Test
    void twoNodesThatDroppedEachOtherHealIntoOneRingAndKeepTheWritesOfBothSides() {
        // a short deadline: a node takes itself for alone after twice that of silence
        ring = new Ring(clock, false).with(ChordOptions.OPERATION_TIMEOUT.name(), "500ms")
                .with(ChordOptions.REQUEST_TIMEOUT.name(), "200ms");
        ChordDht first = ring.add();
        ChordDht second = ring.add();
        ring.awaitSettled();
        write(first, "before", AORS);

        ring.network.silence(second.self().address());
        Ring.awaitTrue("each node alone", () -> alone(first) && alone(second), Duration.ofSeconds(20));
        write(first, "split-first", AORS);
        write(second, "split-second", AORS);

        ring.network.unsilence(second.self().address());
        ring.awaitSettled();
        assertTrue(counter(first, "chord.rejoined") + counter(second, "chord.rejoined") > 0,
                "the ring healed by a rejoin: " + first.metrics() + " " + second.metrics());
        for (String side : List.of("before", "split-first", "split-second")) {
            for (ChordDht through : List.of(first, second)) {
                Ring.awaitTrue("every " + side + " AOR read through " + through.self(),
                        () -> IntStream.range(0, AORS).allMatch(i -> found(through, aor(side, i))), Duration.ofSeconds(20));
            }
        }
    }

    @Test
    void changesBothSidesMadeToOneAorWhileSplitAreMergedContactByContact() {
        ring = new Ring(clock, false).with(ChordOptions.OPERATION_TIMEOUT.name(), "500ms")
                .with(ChordOptions.REQUEST_TIMEOUT.name(), "200ms");
        ChordDht first = ring.add();
        ChordDht second = ring.add();
        ring.awaitSettled();
        int aors = 50;
        write(first, "shared", aors);

        ring.network.silence(second.self().address());
        Ring.awaitTrue("each node alone", () -> alone(first) && alone(second), Duration.ofSeconds(20));
        // the first side adds a contact to every AOR; the second side adds another and, to half of
        // them, removes the contact both sides had: each change acknowledged on its side
        for (int i = 0; i < aors; i++) {
            String aor = aor("shared", i);
            change(first, aor, "sip:first@192.0.2.2", false);
            change(second, aor, "sip:second@192.0.2.3", i % 2 == 0);
        }

        ring.network.unsilence(second.self().address());
        ring.awaitSettled();
        for (ChordDht through : List.of(first, second)) {
            Ring.awaitTrue("every AOR holds both sides' contacts, read through " + through.self(),
                    () -> IntStream.range(0, aors).allMatch(i -> merged(through, aor("shared", i), i % 2 != 0)),
                    Duration.ofSeconds(20));
        }
    }

    private static boolean alone(ChordDht node) {
        return Ring.get(Ring.neighbours(node)).successors().isEmpty();
    }

    private static long counter(ChordDht node, String name) {
        return node.metrics().getOrDefault(name, 0L);
    }

    /** Adds {@code contact} to {@code aor}'s set as read through {@code through}, and removes the original contact if asked. */
    private void change(ChordDht through, String aor, String contact, boolean removeOriginal) {
        BindingSet held = Ring.get(through.get(aor));
        var next = new java.util.ArrayList<>(held.bindings());
        if (removeOriginal) {
            next.removeIf(b -> b.contact().equals(contact(aor)));
        }
        next.add(new Binding(aor, contact, clock.millis() + 3_600_000, Binding.Q_UNSPECIFIED, "call-" + contact, 1,
                List.of(), "", 0));
        assertTrue(Ring.get(through.put(held.next(next, held.retainUntil()))), "a change on its side is stored");
    }

    /** Whether {@code aor} lists both sides' contacts, and the original one exactly when it was kept. */
    private static boolean merged(ChordDht through, String aor, boolean originalKept) {
        try {
            var contacts = Ring.get(through.get(aor)).bindings().stream().map(Binding::contact).collect(java.util.stream.Collectors.toSet());
            return contacts.contains("sip:first@192.0.2.2") && contacts.contains("sip:second@192.0.2.3")
                    && contacts.contains(contact(aor)) == originalKept && contacts.size() == (originalKept ? 3 : 2);
        } catch (AssertionError failedOrHung) {
            return false;
        }
    }

    /** Whether {@code aor} reads as written once (version 1, its one contact) through {@code through}. */
    private boolean found(ChordDht through, String aor) {
        try {
            BindingSet got = Ring.get(through.get(aor));
            return got.version() == 1 && got.bindings().size() == 1
                    && got.bindings().get(0).contact().equals(contact(aor));
        } catch (AssertionError failedOrHung) { // Ring.get's way of saying the read failed or hung
            return false; // the ring may still be handing records over: asked again
        }
    }

    private void write(ChordDht through, String side, int count) {
        var puts = IntStream.range(0, count).mapToObj(i -> {
            String aor = aor(side, i);
            Binding b = new Binding(aor, contact(aor), clock.millis() + 3_600_000, Binding.Q_UNSPECIFIED, "call-" + i, 1,
                    List.of(), "", 0);
            return through.put(new BindingSet(aor, 0, clock.millis() + 3_600_000, List.of(b))).toCompletableFuture();
        }).toList();
        puts.forEach(put -> assertTrue(Ring.get(put), "a put on a fresh AOR is stored"));
    }

    private static String aor(String side, int i) {
        return "sip:" + side + i + "@partition.example.com";
    }

    private static String contact(String aor) {
        return "sip:" + aor.substring(4, aor.indexOf('@')) + "@192.0.2.1";
    }
}
