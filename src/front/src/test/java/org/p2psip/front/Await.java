package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits on a condition with a deadline, polling; tests never sleep a fixed time. */
final class Await {

    static final Duration DEADLINE = Duration.ofSeconds(10);

    private Await() {
    }

    static void until(BooleanSupplier condition, Supplier<String> what) {
        long end = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("waited " + DEADLINE.toSeconds() + "s for: " + what.get());
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(5); // polling period, not a wait for an outcome
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }
}
