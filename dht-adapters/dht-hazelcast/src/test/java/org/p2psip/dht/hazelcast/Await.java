package org.p2psip.dht.hazelcast;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition by polling it, with a deadline: tests never sleep a fixed time. */
final class Await {

    private Await() {
    }

    static void until(Duration patience, BooleanSupplier condition, Supplier<String> whatWasSeen) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not true within " + patience + ": " + whatWasSeen.get());
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(50); // polling interval, not a wait for the outcome
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
