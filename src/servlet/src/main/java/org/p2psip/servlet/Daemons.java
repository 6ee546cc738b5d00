package org.p2psip.servlet;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The node's own background timers: one daemon thread each, so that none holds the JVM up at stop. */
final class Daemons {

    private Daemons() {
    }

    /** A single-threaded scheduler whose thread is a daemon named {@code name}. */
    static ScheduledExecutorService scheduler(String name) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }
}
