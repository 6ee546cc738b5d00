package org.p2psip.servlet;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admission control: a bound on requests waiting on the DHT. Past it a request is refused at
 * once with a cheap 503, because the container itself has no protection that acts before its
 * queues grow (docs/container.md, "Overload"). Thread-safe.
 */
final class Admission {

    private final int limit;
    private final AtomicInteger inFlight = new AtomicInteger();

    Admission(int limit) {
        this.limit = limit;
    }

    /** Takes a place, or returns false if every place is taken. */
    boolean enter() {
        while (true) {
            int current = inFlight.get();
            if (current >= limit) {
                return false;
            }
            if (inFlight.compareAndSet(current, current + 1)) {
                return true;
            }
        }
    }

    void leave() {
        inFlight.decrementAndGet();
    }

    int inFlight() {
        return inFlight.get();
    }
}
